/**
 * `npm run bench:storage-release [-- N [FILES]]`: what deleting gives back, at scale.
 * 1. A snapshot: a READY dataset of N media (default 100,000) built straight in Postgres
 *    (syntheticDataset.ts), two snapshots taken with the real takeSnapshot, the older one deleted and
 *    the storage collector's steps run (SNAPSHOT_RETENTION_DAYS=0). Bytes of the version tables
 *    before and after (then after VACUUM and VACUUM FULL, which is when the files shrink); the peer in
 *    the same run is the snapshot copy itself.
 * 2. A dataset: FILES media (default 20,000) whose blobs are real 4 KiB files in a local object
 *    store, half of them shared by content with the first dataset, deleted and collected; bytes on
 *    disk and rows before and after (the shared half must stay). Every one of its blobs also has a
 *    prepared model input left behind (an interrupted ingest's), and 100 media of the live dataset
 *    wait for their embedding with theirs: the former go, the latter stay.
 * Results: bench/results/storage-release/storage-release-<N>-<FILES>-<date>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/connection';
import { markDatasetDeleted, pendingReleaseCounts } from '../../db/repositories/storageRelease';
import { softDeleteSnapshot } from '../../db/repositories/snapshots';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { VERSION_TABLES, versionTablesBytes } from '../../db/repositories/versions';
import { blobKey, MODEL_INPUTS, modelInputKey } from '../../lib/storage/objectStore';
import { createLocalObjectStore } from '../../lib/storage/localObjectStore';
import { createEmbeddedVectorStore } from '../../lib/vectors/embeddedVectorStore';
import * as collection from '../../services/storageCollection';
import { takeSnapshot } from '../../services/snapshots';
import { benchMachine, say, timed, withBenchDatabase, writeReport, runBench } from './common';
import { seedSyntheticDataset } from './syntheticDataset';

const count = Number(process.argv[2] ?? 100_000);
const files = Number(process.argv[3] ?? 20_000);
const mib = (bytes: number) => Number((bytes / 2 ** 20).toFixed(1));
/** Media of the live dataset whose model inputs an embedding still needs. */
const AWAITING_EMBEDDING = 100;
const INPUT_SPEC = { size: 224, resize: 'fill' };

async function versionRows(db: Db): Promise<number> {
  let rows = 0;
  for (const table of VERSION_TABLES) rows += Number((await db(table).count({ n: '*' }))[0].n);
  return rows;
}

function dirBytes(dir: string): { files: number; bytes: number } {
  let total = { files: 0, bytes: 0 };
  if (!fs.existsSync(dir)) return total;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const inner = dirBytes(full);
      total = { files: total.files + inner.files, bytes: total.bytes + inner.bytes };
    } else total = { files: total.files + 1, bytes: total.bytes + fs.statSync(full).size };
  }
  return total;
}

async function collectAll(deps: Parameters<typeof collection.purgeDeletedDatasets>[0]) {
  const steps = {
    purgeDeletedDatasets: await timed(() => collection.purgeDeletedDatasets(deps)),
    purgeDeletedSnapshots: await timed(() => collection.purgeExpiredSnapshots(deps)),
    releaseBlobs: await timed(() => collection.releaseBlobs(deps)),
    releaseModelInputs: await timed(() => collection.releaseModelInputs(deps)),
    releaseVectorSpaces: await timed(() => collection.releaseVectorSpaces(deps)),
  };
  return Object.fromEntries(Object.entries(steps).map(([name, step]) => [name, { seconds: step.seconds, items: step.value }]));
}

async function main(): Promise<void> {
  say(`bench:storage-release: a snapshot of ${count} media, a dataset of ${files} blobs, on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-storage-release-'));
  try {
    await withBenchDatabase('storage-release', async (db, admin) => {
      const store = createLocalObjectStore(path.join(scratch, 'objects'));
      const vectors = createEmbeddedVectorStore({ rows: createVectorPointRows(db) });
      const deps = { db, store, vectors, heartbeat: () => undefined, settings: { snapshotRetentionDays: 0, exportRetentionDays: 0, intervalMinutes: 60 } };

      // 1. A deleted snapshot.
      const seeded = await seedSyntheticDataset(db, count, 512);
      say(`  seeded ${count} media`);
      const bytesBase = await versionTablesBytes(db);
      const snapshot = (name: string) => takeSnapshot(db, { datasetId: seeded.datasetId, reason: 'manual', datasetStatus: 'READY', createdBy: admin.id, name });
      const first = await timed(() => snapshot('first'));
      await snapshot('second');
      await db.raw('VACUUM ANALYZE');
      const bytesWithTwo = await versionTablesBytes(db);
      const rowsWithTwo = await versionRows(db);
      await softDeleteSnapshot(db, seeded.datasetId, first.value);
      const snapshotSteps = await collectAll(deps);
      const bytesAfterCollect = await versionTablesBytes(db);
      await db.raw('VACUUM');
      const bytesAfterVacuum = await versionTablesBytes(db);
      await db.raw(`VACUUM FULL ${[...VERSION_TABLES, 'dataset_versions'].join(', ')}`);
      const bytesAfterFull = await versionTablesBytes(db);
      const rowsAfter = await versionRows(db);
      const purgeSeconds = snapshotSteps.purgeDeletedSnapshots.seconds;
      say(`  snapshot copy ${first.seconds.toFixed(2)} s; the collector's purge of it ${purgeSeconds.toFixed(2)} s (${(purgeSeconds / first.seconds).toFixed(2)}x the copy)`);
      say(`  version tables: ${mib(bytesWithTwo)} MiB with two snapshots → ${mib(bytesAfterFull)} MiB after delete + collect + VACUUM FULL (${mib(bytesAfterCollect)} before vacuum); rows ${rowsWithTwo} → ${rowsAfter}`);

      // 2. A deleted dataset whose blobs nothing else uses.
      const other = await seedSyntheticDataset(db, files, 512);
      // Half its media share their bytes with the first dataset (the seed names blobs by row number), half are its own.
      await db.raw(
        `UPDATE media SET blob_sha256 = encode(sha256(id::text::bytea), 'hex'), thumb_sha256 = encode(sha256(id::text::bytea), 'hex')
         WHERE version_id = ? AND file_name ~ '[13579][.]jpg$'`,
        [other.versionId],
      );
      const shas: string[] = await db('media').where({ version_id: other.versionId }).distinct().pluck('blob_sha256');
      const blob = randomBytes(4096);
      for (let i = 0; i < shas.length; i += 64) await Promise.all(shas.slice(i, i + 64).map((sha) => store.put(blobKey(sha), blob)));
      const awaiting: string[] = await db('media').where({ version_id: seeded.versionId }).orderBy('id').limit(AWAITING_EMBEDDING).pluck('blob_sha256');
      await db('media').whereIn('blob_sha256', awaiting).update({ embedded: false });
      const inputShas = [...shas, ...awaiting];
      for (let i = 0; i < inputShas.length; i += 64) await Promise.all(inputShas.slice(i, i + 64).map((sha) => store.put(modelInputKey(sha, INPUT_SPEC), blob)));
      const inputsDir = path.join(scratch, 'objects', MODEL_INPUTS);
      const inputsBefore = dirBytes(inputsDir);
      const diskBefore = dirBytes(path.join(scratch, 'objects'));
      const rowsBefore = await versionRows(db);
      if (!(await markDatasetDeleted(db, other.datasetId, ['READY']))) throw new Error('the dataset was not deleted');
      const datasetSteps = await collectAll(deps);
      const diskAfter = dirBytes(path.join(scratch, 'objects'));
      const inputsAfter = dirBytes(inputsDir);
      const inputsKept = (await Promise.all(awaiting.map((sha) => store.exists(modelInputKey(sha, INPUT_SPEC))))).filter(Boolean).length;
      say(`  model inputs: ${inputsBefore.files} files, ${mib(inputsBefore.bytes)} MiB → ${inputsAfter.files} files, ${mib(inputsAfter.bytes)} MiB (${inputsKept} of ${awaiting.length} awaiting embedding kept)`);
      const rowsAfterDelete = await versionRows(db);
      say(`  dataset delete: ${diskBefore.files} files, ${mib(diskBefore.bytes)} MiB → ${diskAfter.files} files, ${mib(diskAfter.bytes)} MiB; rows ${rowsBefore} → ${rowsAfterDelete}`);
      for (const [name, step] of Object.entries(datasetSteps)) say(`    ${name}: ${step.seconds.toFixed(2)} s, ${step.items} items`);
      await vectors.close();

      writeReport('storage-release', `storage-release-${count}-${files}`, {
        date: new Date().toISOString(),
        machine: benchMachine(),
        method:
          'Synthetic datasets in an embedded Postgres; the collector steps (services/storageCollection.ts) run in process as its activities do. ' +
          'Bytes: pg_total_relation_size of the version tables (files shrink only with VACUUM FULL; after plain VACUUM the space is reused by later rows). ' +
          'Blobs: 4 KiB files in a local object store, one per media item; half of the deleted dataset\'s blobs are shared by content with the live one and must stay. ' +
          `Model inputs: 4 KiB files (a real one is 150 KB) under ${MODEL_INPUTS}, one per blob of the deleted dataset (left by an interrupted ingest) and one per ${AWAITING_EMBEDDING} live media not embedded yet, which must stay.`,
        snapshot_delete: {
          media: count,
          snapshot_copy_seconds: first.seconds,
          version_table_mib: { before_snapshots: mib(bytesBase), with_two_snapshots: mib(bytesWithTwo), after_collect: mib(bytesAfterCollect), after_vacuum: mib(bytesAfterVacuum), after_vacuum_full: mib(bytesAfterFull) },
          version_rows: { with_two_snapshots: rowsWithTwo, after: rowsAfter },
          steps: snapshotSteps,
          purge_to_copy_ratio: purgeSeconds / first.seconds,
        },
        dataset_delete: {
          media: files,
          object_store: { before: { files: diskBefore.files, mib: mib(diskBefore.bytes) }, after: { files: diskAfter.files, mib: mib(diskAfter.bytes) } },
          model_inputs: {
            before: { files: inputsBefore.files, mib: mib(inputsBefore.bytes) },
            after: { files: inputsAfter.files, mib: mib(inputsAfter.bytes) },
            awaiting_embedding_kept: `${inputsKept} of ${awaiting.length}`,
          },
          version_rows: { before: rowsBefore, after: rowsAfterDelete },
          steps: datasetSteps,
          pending_after: await pendingReleaseCounts(db),
        },
      } as { date: string });
    });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runBench(main);
