/**
 * `npm run bench:version-copy [-- N[,N…]]`: builds a READY dataset of N media (default 100,000)
 * straight in Postgres (media, 5 clustering levels, issues, labels, tags; see syntheticDataset.ts),
 * then measures, as the product does them: a snapshot (takeSnapshot, through a pool with the API's
 * statement time limit, DATABASE_QUERY_TIMEOUT_SECONDS' default), a restore's and a clone's copy of
 * the snapshot's version (the copyDatasetVersion activity, into the same and a new dataset). Copies
 * share the clustering. The peer in the same run is the copy as it was before clusterings were
 * shared: every table, clusters and memberships included, one INSERT … SELECT each, in one
 * transaction. Each reports seconds, rows and bytes added; results go to
 * bench/results/version-copy/version-copy-<N>-<date>.json.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createVersionActivities } from '../../activities/versions';
import { createDb, type Db } from '../../db/connection';
import { createDataset } from '../../db/repositories/datasets';
import { CLUSTERING_TABLES, createCopyVersion, findVersion, inSnapshotTransaction, VERSION_TABLES, versionTablesBytes } from '../../db/repositories/versions';
import { takeSnapshot } from '../../services/snapshots';
import { benchMachine, say, timed, withBenchDatabase, writeReport, runBench } from './common';
import { seedSyntheticDataset } from './syntheticDataset';

const sizes = (process.argv[2] ?? '100000').split(',').map(Number);
/** DATABASE_QUERY_TIMEOUT_SECONDS' default: the limit every statement of the API's pool runs under. */
const API_QUERY_TIMEOUT_MS = 15_000;

async function newTargetDataset(db: Db, name: string): Promise<string> {
  const admin = await db('users').first();
  const workspace = await db('workspaces').first();
  return (await createDataset(db, { name, ownerId: admin.id, workspaceId: workspace.id, status: 'READY' })).id;
}

/** The copy before clusterings were shared (the peer): every table, clustering included, one INSERT … SELECT each, in one transaction. */
async function fullCopy(db: Db, sourceVersionId: string, targetDatasetId: string): Promise<number> {
  const source = (await findVersion(db, sourceVersionId))!;
  return inSnapshotTransaction(db, async (trx) => {
    const versionId = randomUUID();
    await createCopyVersion(trx, { ...source, clustering_id: versionId }, targetDatasetId, versionId);
    let rows = 0;
    for (const [tables, key, from, to] of [
      [VERSION_TABLES, 'version_id', source.id, versionId],
      [CLUSTERING_TABLES, 'clustering_id', source.clustering_id, versionId],
    ] as const) {
      for (const table of tables) {
        const columns: string[] = await trx('information_schema.columns')
          .where({ table_schema: trx.raw('current_schema()'), table_name: table, is_generated: 'NEVER' })
          .whereNot('column_name', key)
          .pluck('column_name');
        const list = columns.map((column) => `"${column}"`).join(', ');
        rows += (await trx.raw(`INSERT INTO ${table} (${key}, ${list}) SELECT ?, ${list} FROM ${table} WHERE ${key} = ?`, [to, from])).rowCount ?? 0;
      }
    }
    return rows;
  });
}

/** `fn`'s seconds and the bytes the version and clustering tables grew by. */
async function measured<T>(db: Db, fn: () => Promise<T>) {
  const before = await versionTablesBytes(db);
  const run = await timed(fn);
  return { ...run, bytes_added: (await versionTablesBytes(db)) - before };
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const total = (rows: Record<string, number | undefined>) => Object.values(rows).reduce<number>((sum, n) => sum + (n ?? 0), 0);

async function benchOne(db: Db, apiDb: Db, count: number) {
  say(`\n${count} media`);
  const seeded = await timed(() => seedSyntheticDataset(db, count, 1280));
  const { versionId, datasetId } = seeded.value;
  say(`  seeded in ${seeded.seconds.toFixed(1)} s; load ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  await db.raw('ANALYZE');
  const vectorRows = async () => Number((await db('vector_points').count({ n: '*' }).first())!.n);
  const vectorsBefore = await vectorRows();
  const loads: Record<string, number[]> = {};

  const snapshot = await measured(db, () => takeSnapshot(apiDb, { datasetId, reason: 'manual', datasetStatus: 'READY', createdBy: null }));
  loads.snapshot = os.loadavg();
  const snapshotVersion: string = (await db('snapshots').where({ id: snapshot.value }).first('version_id')).version_id;
  const snapshotRows = Number((await db('media').where({ version_id: snapshotVersion }).count({ n: '*' }).first())!.n);
  say(`  snapshot (API pool, ${API_QUERY_TIMEOUT_MS / 1000} s statement limit): ${snapshot.seconds.toFixed(2)} s, ${snapshotRows} media, +${mib(snapshot.bytes_added)}`);

  const activities = createVersionActivities({ db });
  const copyOf = (targetDatasetId: string) => () =>
    new MockActivityEnvironment().run(activities.copyDatasetVersion, { sourceVersionId: snapshotVersion, targetDatasetId, versionId: randomUUID() }) as ReturnType<
      typeof activities.copyDatasetVersion
    >;
  const restore = await measured(db, copyOf(datasetId));
  loads.restore = os.loadavg();
  say(`  restore's copy: ${restore.seconds.toFixed(2)} s, ${total(restore.value.rows)} rows, +${mib(restore.bytes_added)}`);
  const clone = await measured(db, copyOf(await newTargetDataset(db, `clone-${count}`)));
  loads.clone = os.loadavg();
  say(`  clone's copy: ${clone.seconds.toFixed(2)} s, ${total(clone.value.rows)} rows, +${mib(clone.bytes_added)}`);

  const peer = await measured(db, async () => fullCopy(db, versionId, await newTargetDataset(db, `peer-${count}`)));
  loads.peer = os.loadavg();
  say(`  peer (one transaction, clustering copied): ${peer.seconds.toFixed(2)} s, ${peer.value} rows, +${mib(peer.bytes_added)}; ` +
    `the clone's copy is ${(peer.seconds / clone.seconds).toFixed(1)}x faster`);
  const copyReport = (run: typeof restore) => ({ seconds: run.seconds, rows: total(run.value.rows), rows_by_table: run.value.rows, bytes_added: run.bytes_added });
  return {
    media: count,
    seed_seconds: seeded.seconds,
    snapshot: { seconds: snapshot.seconds, media_rows: snapshotRows, bytes_added: snapshot.bytes_added, api_statement_timeout_ms: API_QUERY_TIMEOUT_MS },
    restore: copyReport(restore),
    clone: copyReport(clone),
    peer_full_copy: { seconds: peer.seconds, rows: peer.value, bytes_added: peer.bytes_added },
    clone_speedup_over_peer: peer.seconds / clone.seconds,
    vector_rows_written: (await vectorRows()) - vectorsBefore,
    load_average_after: loads,
  };
}

async function main(): Promise<void> {
  say(`bench:version-copy: ${sizes.join(', ')} media on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  await withBenchDatabase('version-copy', async (db) => {
    const { connectionString } = db.client.config.connection as { connectionString: string };
    const apiDb = createDb(connectionString, 2, { connectTimeoutMs: 3000, acquireTimeoutMs: 5000, queryTimeoutMs: API_QUERY_TIMEOUT_MS });
    const results = [];
    try {
      for (const count of sizes) results.push(await benchOne(db, apiDb, count));
    } finally {
      await apiDb.destroy();
    }
    writeReport('version-copy', `version-copy-${sizes.join('-')}`, {
      date: new Date().toISOString(),
      machine: benchMachine(),
      method:
        'Synthetic READY dataset built in Postgres, then ANALYZE. Snapshot: takeSnapshot on a pool whose statements are limited to 15 s ' +
        "(the API's); restore and clone: the copyDatasetVersion activity (MockActivityEnvironment) from the snapshot's version into the " +
        'same and a new dataset (a restore also switches the head and drops versions: not timed). Peer, same run: the copy before ' +
        'clusterings were shared (every table, clusters and memberships included, one INSERT … SELECT each, one transaction). Bytes: ' +
        'pg_total_relation_size of the version and clustering tables before and after. Load averages (1, 5, 15 min) after each step.',
      results,
    } as { date: string });
  });
}

runBench(main);
