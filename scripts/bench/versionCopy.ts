/**
 * `npm run bench:version-copy [-- N[,N…]]`: builds a READY dataset of N media (default 100,000)
 * straight in Postgres (media, 5 clustering levels, issues, labels, tags; see syntheticDataset.ts),
 * then copies its version into a new dataset with the real copy activity (one INSERT … SELECT per
 * table) and, as the peer in the same run, with a row-by-row application copy (pages of rows read
 * into Node and inserted back), reporting seconds, rows and bytes added. Vectors are shared, so
 * neither copy writes one. Results go to bench/results/version-copy-<N>-<date>.json.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createVersionActivities } from '../../activities/versions';
import type { Db } from '../../db/connection';
import { createDataset } from '../../db/repositories/datasets';
import { createCopyVersion, findVersion, VERSION_TABLES, versionTablesBytes } from '../../db/repositories/versions';
import { benchMachine, say, timed, withBenchDatabase, writeReport, runBench } from './common';
import { seedSyntheticDataset } from './syntheticDataset';

const sizes = (process.argv[2] ?? '100000').split(',').map(Number);
/** The row-by-row peer is measured up to this size; beyond it, it would take the run's whole budget. */
const PEER_LIMIT = Number(process.env.PEER_LIMIT ?? 1_000_000);
const PAGE = 10_000;

async function newTargetDataset(db: Db, name: string): Promise<string> {
  const admin = await db('users').first();
  const workspace = await db('workspaces').first();
  return (await createDataset(db, { name, ownerId: admin.id, workspaceId: workspace.id, status: 'READY' })).id;
}

/** The peer: every row read into the application a page at a time and inserted back under the new version. */
async function rowByRowCopy(db: Db, sourceVersionId: string, targetDatasetId: string): Promise<number> {
  const source = (await findVersion(db, sourceVersionId))!;
  const versionId = randomUUID();
  let rows = 0;
  await db.transaction(async (trx) => {
    await createCopyVersion(trx, source, targetDatasetId, versionId);
    for (const table of VERSION_TABLES) {
      const generated = table === 'media' ? ['caption_tsv', 'caption_key'] : [];
      for (let offset = 0; ; offset += PAGE) {
        const page: Array<Record<string, unknown>> = await trx(table).where({ version_id: sourceVersionId }).orderByRaw('ctid').limit(PAGE).offset(offset);
        if (page.length === 0) break;
        const copies = page.map((row) => {
          const copy: Record<string, unknown> = { ...row, version_id: versionId };
          for (const column of generated) delete copy[column];
          return copy;
        });
        for (let i = 0; i < copies.length; i += 1000) await trx(table).insert(copies.slice(i, i + 1000));
        rows += page.length;
      }
    }
  });
  return rows;
}

async function benchOne(db: Db, count: number) {
  say(`\n${count} media`);
  const seeded = await timed(() => seedSyntheticDataset(db, count, 1280));
  const { versionId } = seeded.value;
  say(`  seeded in ${seeded.seconds.toFixed(1)} s`);
  const vectorRows = async () => Number((await db('vector_points').count({ n: '*' }).first())!.n);
  const vectorsBefore = await vectorRows();

  const activities = createVersionActivities({ db });
  const bytesBefore = await versionTablesBytes(db);
  const target = await newTargetDataset(db, `copy-${count}`);
  const copy = await timed(
    () => new MockActivityEnvironment().run(activities.copyDatasetVersion, { sourceVersionId: versionId, targetDatasetId: target, versionId: randomUUID() }) as ReturnType<typeof activities.copyDatasetVersion>,
  );
  const bytesAfter = await versionTablesBytes(db);
  const rows = Object.values(copy.value.rows).reduce((sum, n) => sum + (n ?? 0), 0);
  say(`  set-based copy (the activity): ${copy.seconds.toFixed(2)} s, ${rows} rows, +${((bytesAfter - bytesBefore) / 2 ** 20).toFixed(0)} MiB`);

  let peer: { seconds: number; rows: number; bytes_added: number } | undefined;
  if (count <= PEER_LIMIT) {
    const before = await versionTablesBytes(db);
    const peerTarget = await newTargetDataset(db, `peer-copy-${count}`);
    const run = await timed(() => rowByRowCopy(db, versionId, peerTarget));
    peer = { seconds: run.seconds, rows: run.value, bytes_added: (await versionTablesBytes(db)) - before };
    say(`  row-by-row copy (peer): ${run.seconds.toFixed(2)} s, ${run.value} rows; the set-based copy is ${(run.seconds / copy.seconds).toFixed(1)}x faster`);
  }
  return {
    media: count,
    seed_seconds: seeded.seconds,
    copy: { seconds: copy.seconds, rows, rows_by_table: copy.value.rows, bytes_added: bytesAfter - bytesBefore, rows_per_second: rows / copy.seconds },
    vector_rows_written: (await vectorRows()) - vectorsBefore,
    peer_row_by_row: peer,
    speedup_over_peer: peer ? peer.seconds / copy.seconds : undefined,
  };
}

async function main(): Promise<void> {
  say(`bench:version-copy: ${sizes.join(', ')} media on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  await withBenchDatabase('version-copy', async (db) => {
    const results = [];
    for (const count of sizes) results.push(await benchOne(db, count));
    writeReport(`version-copy-${sizes.join('-')}`, {
      date: new Date().toISOString(),
      machine: benchMachine(),
      method:
        'Synthetic READY dataset built in Postgres; the copy is the copyDatasetVersion activity run once (MockActivityEnvironment); ' +
        'the peer reads each table in pages of 10,000 rows and inserts them back in batches of 1,000, in one transaction. Bytes: ' +
        'pg_total_relation_size of the version tables before and after.',
      results,
    } as { date: string });
  });
}

runBench(main);
