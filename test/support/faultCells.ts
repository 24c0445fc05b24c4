import fs from 'node:fs';
import path from 'node:path';
import { headVersion } from '../../db/repositories/versions';
import type { TaskType } from '../../lib/datasetStates';
import { imageCollection } from '../../lib/vectors/vectorStore';
import { makeZip } from './archives';
import { createReadyDataset, newDatasetWithTransaction, uploadFiles, waitForTask } from './datasets';
import { downloadExport, exportFinished } from './exportArchives';
import { photo, PHOTO_NAMES } from './media';
import type { TestApi } from './testStack';
import { readZip } from './zip';

/** What one dataset holds, counted where it lives: media rows, their vectors in the vector store, cluster memberships per threshold. */
export interface Counts {
  media: number;
  distinctNames: number;
  vectors: number;
  clusterMembers: number[];
}

const THRESHOLDS = [0, 1, 2, 3, 4];

export async function countsOf(api: TestApi, datasetId: string): Promise<Counts> {
  const { db, vectors } = api.deps;
  const version = await headVersion(db, datasetId);
  const media: Array<{ id: string; file_name: string }> = await db('media').where({ version_id: version.id }).select('id', 'file_name');
  const members: Array<{ threshold: number; n: string }> = await db('cluster_members').where({ clustering_id: version.clustering_id }).groupBy('threshold').select('threshold', db.raw('count(*) as n'));
  const byThreshold = new Map(members.map((row) => [Number(row.threshold), Number(row.n)]));
  return {
    media: media.length,
    distinctNames: new Set(media.map((row) => row.file_name)).size,
    vectors: (await vectors.get(imageCollection(version.vector_space_id), media.map((row) => row.id))).size,
    clusterMembers: THRESHOLDS.map((threshold) => byThreshold.get(threshold) ?? 0),
  };
}

/** Counts of a whole, consistent dataset of `n` images: each once, each with a vector, each in one cluster per threshold. */
export const whole = (n: number): Counts => ({ media: n, distinctNames: n, vectors: n, clusterMembers: THRESHOLDS.map(() => n) });

/** The dataset's status as the API answers it, and the reason it stores for an ERROR (the API shows it on the task). */
export async function statusOf(api: TestApi, datasetId: string): Promise<{ status_new: string; error_message: string | null }> {
  const { status_new } = (await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body;
  const { error_message } = await api.deps.db('datasets').where({ id: datasetId }).first('error_message');
  return { status_new, error_message };
}

/** A task of the matrix, as its row reads. */
export interface TaskRow {
  task_id: string;
  task_type: TaskType;
  dataset_id: string;
  status: string;
  error_message: string | null;
  can_retry: boolean;
}

/** One task type prepared on datasets of its own: how to start it, start its operation again, and what a completed run leaves. */
export interface PreparedCell {
  taskType: TaskType;
  /** Starts the task; resolves when the API accepted it. */
  start(): Promise<void>;
  /** Starts the same operation again after a run that failed and cannot be retried. */
  again(): Promise<void>;
  /** The datasets the task's end must leave in a valid status (beside the task's own, which may be a new dataset). */
  held: string[];
  /** Checks statuses and counts after the task (or its retry or new run) COMPLETED. */
  expectCompleted(task: TaskRow): Promise<void>;
}

/** Distinct photos under their own names (a batch whose names are new to the dataset). */
function renamedPhotos(dir: string, names: string[], prefix: string): string[] {
  return names.map((name) => {
    const file = path.join(dir, `${prefix}_${name}.jpg`);
    fs.copyFileSync(photo(name), file);
    return file;
  });
}

async function addMedia(api: TestApi, datasetId: string, archive: string): Promise<void> {
  await api.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('archive', archive).expect(202);
}

async function finished(api: TestApi, datasetId: string, what: string): Promise<void> {
  const task = await waitForTask(api, datasetId, ['COMPLETED', 'FAILED']);
  if (task.status !== 'COMPLETED') throw new Error(`${what} failed while preparing: ${task.error_message}`);
}

const [A, B, C, D, E] = PHOTO_NAMES;

/**
 * Every task type of the task modules (lib/tasks) on small datasets of real photos, prepared through the API
 * with a worker running. Each cell knows the counts a completed run leaves.
 */
export async function prepareCells(api: TestApi, scratch: string): Promise<PreparedCell[]> {
  const ready = (name: string, photos: string[]) => createReadyDataset(api, name, photos.map(photo));
  const expectStatus = async (datasetId: string, status: string) => expect((await statusOf(api, datasetId)).status_new).toBe(status);
  const expectCounts = async (datasetId: string, counts: Counts) => expect(await countsOf(api, datasetId)).toEqual(counts);

  const [creation, addTo, reindexed, shared, enriched, metadata, propagated, checked, restored, selected] = await Promise.all([
    newDatasetWithTransaction(api, 'creation'),
    ready('media addition', [A, B]),
    ready('reindex', [A, B]),
    ready('export, clone', PHOTO_NAMES),
    ready('enrichment', [A, B, C]),
    ready('custom metadata', [A, B, C]),
    ready('label propagation', [A, B, C]),
    ready('label quality', [A, B, C, D]),
    ready('restore', [A, B]),
    ready('selection', [A, B, C, D]),
  ]);
  await uploadFiles(api, creation.datasetId, creation.transId, [A, B, C, D].map(photo)).expect(202);
  const batch = makeZip(path.join(scratch, 'batch.zip'), Object.fromEntries(renamedPhotos(scratch, [C, D, E], 'batch').map((file) => [path.basename(file), file])));
  const laterBatch = makeZip(path.join(scratch, 'later.zip'), Object.fromEntries(renamedPhotos(scratch, [C, D], 'later').map((file) => [path.basename(file), file])));
  const labels = path.join(scratch, 'labels.json');
  fs.writeFileSync(labels, JSON.stringify([A, B, C, D].map((name, i) => ({ file_name: `${name}.jpg`, category: i % 2 ? 'odd' : 'even', rank: i }))));

  const snapshotOf = async (datasetId: string, name: string) =>
    (await api.request.post(`/api/v1/dataset/${datasetId}/snapshot`).send({ name }).expect(200)).body.snapshot_id as string;
  const [restorePoint, clonePoint] = await Promise.all([snapshotOf(restored, 'two photos'), snapshotOf(shared, 'to clone')]);
  await Promise.all([addMedia(api, reindexed, laterBatch), addMedia(api, restored, laterBatch)]);
  await api.request.post(`/api/v1/dataset/${checked}/custom_metadata`).attach('file', labels).expect(202);
  await Promise.all([finished(api, reindexed, 'add_media'), finished(api, restored, 'add_media'), finished(api, checked, 'custom_metadata')]);
  const seed = (await api.deps.db('media').where({ version_id: (await headVersion(api.deps.db, propagated)).id, file_name: `${A}.jpg` }).first('id')).id as string;

  // A selection writes a new tag: each run gets a name of its own, the last one's is checked.
  let selections = 0;
  const select = async () => {
    selections += 1;
    await api.request.post(`/api/v1/dataset/${selected}/selections`).send({ strategy: 'diversity', n: 2, tag: `fault ${selections}`, seed: 1 }).expect(202);
  };

  const cells: PreparedCell[] = [
    {
      taskType: 'DATASET_CREATION',
      held: [],
      start: async () => void (await api.request.post(`/api/v1/ingestion/${creation.datasetId}/process_files/${creation.transId}`).expect(202)),
      again: async () => undefined,
      async expectCompleted() {
        await expectStatus(creation.datasetId, 'READY');
        await expectCounts(creation.datasetId, whole(4));
      },
    },
    {
      taskType: 'MEDIA_ADDITION',
      held: [addTo],
      start: () => addMedia(api, addTo, batch),
      // A batch ended before anything arrived gives the dataset back READY: the same archive again. One
      // that left media in (PARTIAL INDEX) is completed by a reindex of what was received.
      again: async () =>
        (await statusOf(api, addTo)).status_new === 'READY'
          ? addMedia(api, addTo, batch)
          : void (await api.request.post(`/api/v1/dataset/${addTo}/reindex`).expect(202)),
      async expectCompleted(task) {
        await expectStatus(addTo, task.task_type === 'REINDEX' ? 'READY' : 'PARTIAL INDEX');
        await expectCounts(addTo, whole(5));
      },
    },
    {
      taskType: 'REINDEX',
      held: [reindexed],
      start: async () => void (await api.request.post(`/api/v1/dataset/${reindexed}/reindex`).expect(202)),
      again: async () => void (await api.request.post(`/api/v1/dataset/${reindexed}/reindex`).expect(202)),
      async expectCompleted() {
        await expectStatus(reindexed, 'READY');
        await expectCounts(reindexed, whole(4));
      },
    },
    {
      taskType: 'EXPORT',
      held: [shared],
      start: async () => void (await api.request.get(`/api/v1/dataset/${shared}/export_context_async`).query({ file_name: 'fault', export_format: 'json', include_images: 'true' }).expect(200)),
      again: async () => void (await api.request.get(`/api/v1/dataset/${shared}/export_context_async`).query({ file_name: 'again', export_format: 'json', include_images: 'true' }).expect(200)),
      async expectCompleted(task) {
        const status = await exportFinished(api, shared, task.task_id);
        const entries = await readZip((await downloadExport(api, status.download_uri).expect(200)).body);
        const records = JSON.parse(entries.get('metadata.json')!.toString('utf8')) as Array<{ image_filename: string }>;
        expect(records).toHaveLength(PHOTO_NAMES.length);
        expect([...entries.keys()].filter((name) => name.startsWith('images/')).sort()).toEqual(records.map((record) => `images/${record.image_filename}`).sort());
      },
    },
    {
      taskType: 'SNAPSHOT_CLONE',
      held: [shared],
      start: async () => void (await api.request.post(`/api/v1/dataset/${shared}/snapshot/${clonePoint}/clone`).expect(202)),
      again: async () => void (await api.request.post(`/api/v1/dataset/${shared}/snapshot/${clonePoint}/clone`).expect(202)),
      async expectCompleted(task) {
        expect(task.dataset_id).not.toBe(shared);
        await expectStatus(task.dataset_id, 'READY');
        await expectCounts(task.dataset_id, whole(PHOTO_NAMES.length));
      },
    },
    {
      taskType: 'ENRICHMENT',
      held: [enriched],
      start: async () => void (await api.request.post(`/api/v1/dataset/${enriched}/enrich_dataset`).send({ enrichment_models: { IMAGE_TAGGING: 'imagenet-tagger@1' } }).expect(200)),
      again: async () => void (await api.request.post(`/api/v1/dataset/${enriched}/enrich_dataset`).send({ enrichment_models: { IMAGE_TAGGING: 'imagenet-tagger@1' } }).expect(200)),
      async expectCompleted(task) {
        expect(task.dataset_id).not.toBe(enriched);
        await expectStatus(task.dataset_id, 'READY');
        await expectCounts(task.dataset_id, whole(3));
      },
    },
    {
      taskType: 'CUSTOM_METADATA',
      held: [metadata],
      start: async () => void (await api.request.post(`/api/v1/dataset/${metadata}/custom_metadata`).attach('file', labels).expect(202)),
      again: async () => void (await api.request.post(`/api/v1/dataset/${metadata}/custom_metadata`).attach('file', labels).expect(202)),
      async expectCompleted() {
        await expectStatus(metadata, 'READY');
        await expectCounts(metadata, whole(3));
        const version = await headVersion(api.deps.db, metadata);
        expect(await api.deps.db('media').where({ version_id: version.id }).whereNotNull('custom_metadata').count({ n: '*' })).toEqual([{ n: '3' }]);
      },
    },
    {
      taskType: 'LABEL_PROPAGATION',
      held: [propagated],
      start: async () => void (await api.request.post(`/api/v1/dataset/${propagated}/labels/propagate`).send({ label: 'fault', selection: { media_ids: [seed] }, min_similarity: 0.5 }).expect(202)),
      again: async () => void (await api.request.post(`/api/v1/dataset/${propagated}/labels/propagate`).send({ label: 'fault', selection: { media_ids: [seed] }, min_similarity: 0.5 }).expect(202)),
      async expectCompleted() {
        await expectStatus(propagated, 'READY');
        await expectCounts(propagated, whole(3));
        const version = await headVersion(api.deps.db, propagated);
        const rows: Array<{ media_id: string; source: string }> = await api.deps.db('media_labels').where({ version_id: version.id, label: 'fault' }).select('media_id', 'source');
        expect(rows.filter((row) => row.source === 'user').map((row) => row.media_id)).toEqual([seed]);
        expect(new Set(rows.map((row) => row.media_id)).size).toBe(rows.length);
      },
    },
    {
      taskType: 'LABEL_QUALITY',
      held: [checked],
      start: async () => void (await api.request.put(`/api/v1/dataset/${checked}/label_fields`).send({ label_field: 'category' }).expect(202)),
      again: async () => void (await api.request.put(`/api/v1/dataset/${checked}/label_fields`).send({ label_field: 'category' }).expect(202)),
      async expectCompleted() {
        await expectStatus(checked, 'READY');
        await expectCounts(checked, whole(4));
        // The report is written in the same transaction as the issues: one check's report, on the head version.
        const version = await headVersion(api.deps.db, checked);
        expect((await api.deps.db('dataset_versions').where({ id: version.id }).first('label_quality')).label_quality).not.toBeNull();
        await api.request.get(`/api/v1/dataset/${checked}/label_quality`).expect(200);
      },
    },
    {
      taskType: 'SELECTION',
      held: [selected],
      start: select,
      again: select,
      async expectCompleted() {
        await expectStatus(selected, 'READY');
        await expectCounts(selected, whole(4));
        const { tags } = (await api.request.get(`/api/v1/dataset/${selected}/tags`).expect(200)).body as { tags: Array<{ id: string; name: string }> };
        const tag = tags.find((found) => found.name === `fault ${selections}`)!;
        expect((await api.request.get(`/api/v1/dataset/${selected}/tags/${tag.id}/picks`).expect(200)).body.picks).toHaveLength(2);
      },
    },
    {
      taskType: 'SNAPSHOT_RESTORE',
      held: [restored],
      start: async () => void (await api.request.post(`/api/v1/dataset/${restored}/snapshot/${restorePoint}/restore`).expect(202)),
      again: async () => void (await api.request.post(`/api/v1/dataset/${restored}/snapshot/${restorePoint}/restore`).expect(202)),
      async expectCompleted() {
        await expectStatus(restored, 'READY');
        await expectCounts(restored, whole(2));
      },
    },
  ];
  return cells;
}
