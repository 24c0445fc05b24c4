import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createExportActivities } from '../../activities/export';
import { insertTask } from '../../db/repositories/tasks';
import { blobKey, exportArchiveKey } from '../../lib/storage/objectStore';
import type { ExportInput } from '../../workflows/contracts';
import type * as Hyparquet from 'hyparquet' with { 'resolution-mode': 'import' };
import { createReadyDataset, newDatasetWithTransaction, waitForDatasetStatus, waitForTask } from '../support/datasets';
import { makeZip } from '../support/archives';
import { readWithPycocotools } from '../support/coco';
import { downloadExport, exportFinished, exportWholeDataset } from '../support/exportArchives';
import { makeVideo, photo } from '../support/media';
import { startTestStack } from '../support/testStack';
import { headVersionId } from '../support/versions';
import { readZip } from '../support/zip';
import { clusteringOf } from '../../db/repositories/clusteringOf';

type Stack = Awaited<ReturnType<typeof startTestStack>>;
type ExportRecordJson = Record<string, unknown> & { media_id: string; image_filename: string; sha256: string; media_type: string };

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parquetMetadata, parquetReadObjects } = require('hyparquet') as typeof Hyparquet;

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('exports: whole and selective, JSON, Parquet and COCO, with and without images', () => {
  let stack: Stack;
  let datasetId: string;
  let versionId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'exports-'));
  const mediaIdOf = async (fileName: string): Promise<string> =>
    (await stack.deps.db('media').where({ version_id: versionId, file_name: fileName }).first('id')).id;

  beforeAll(async () => {
    stack = await startTestStack();
    const copy = path.join(scratch, 'chelsea_copy.jpg');
    await sharp(photo('chelsea')).resize(300).jpeg({ quality: 80 }).toFile(copy);
    const video = makeVideo(2);
    datasetId = await createReadyDataset(stack, 'export me', [photo('chelsea'), photo('coffee'), photo('astronaut'), photo('rocket'), copy, video]);
    versionId = await headVersionId(stack.deps.db, datasetId);

    // Captions, labels and fields from a metadata import; a tag on two photos.
    const csv = path.join(scratch, 'meta.csv');
    fs.writeFileSync(csv, 'file_name,caption,labels,photographer\nchelsea.jpg,A cat on a blanket,cat|animal,Chelsea\nrocket.jpg,,rocket,NASA\n');
    await stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).attach('file', csv).expect(202);
    await waitForTask(stack, datasetId, ['COMPLETED']);
    const tag = (await stack.request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: 'keep' }).expect(201)).body;
    const tagged = [await mediaIdOf('chelsea.jpg'), await mediaIdOf('rocket.jpg')];
    await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ media_ids: tagged }).expect(200);

    // A batch from an archive whose names collide with earlier ones, case aside.
    const darker = await sharp(photo('rocket')).modulate({ brightness: 0.5 }).jpeg().toBuffer();
    const tinted = await sharp(photo('astronaut')).modulate({ hue: 90 }).jpeg().toBuffer();
    const archive = makeZip(path.join(scratch, 'batch.zip'), { 'COFFEE.jpg': darker, 'coffee (2).jpg': tinted, 'trip/coffee.jpg': photo('grace_hopper') });
    await stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('archive', archive).field('auto_reindex', 'true').expect(202);
    await waitForDatasetStatus(stack, datasetId, ['READY']);
    const batch = (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId, task_type: 'MEDIA_ADDITION' }).expect(200)).body.tasks[0];
    expect(batch.status).toBe('COMPLETED');
    versionId = await headVersionId(stack.deps.db, datasetId);
  }, 300_000);
  afterAll(async () => {
    await stack.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const exportsOf = (id: string) => `/api/v1/dataset/${id}`;

  const finished = (taskId: string, id = datasetId) => exportFinished(stack, id, taskId);
  const download = (uri: string) => downloadExport(stack, uri);
  const exportWhole = (query: Record<string, string>) => exportWholeDataset(stack, datasetId, query);

  const jsonRecords = (entries: Map<string, Buffer>): ExportRecordJson[] => JSON.parse(entries.get('metadata.json')!.toString('utf8'));

  /** What every record must say, read straight from the version's tables (a frame repeating an earlier one of its video is left out by default). */
  async function expectedRecords(): Promise<Map<string, Record<string, unknown>>> {
    const { db } = stack.deps;
    const media = await db('media').where({ version_id: versionId }).whereNull('repeat_of_frame').orderBy('id');
    const byId = new Map(media.map((row) => [row.id, row]));
    const sources = new Map<string, { kind: string; location: string | null }>();
    for (const task of await db('tasks').where({ dataset_id: datasetId }).whereIn('task_type', ['DATASET_CREATION', 'MEDIA_ADDITION'])) {
      sources.set(task.input.batchId, task.task_type === 'MEDIA_ADDITION' ? { kind: 'archive', location: 'batch.zip' } : { kind: 'upload', location: null });
    }
    const expected = new Map<string, Record<string, unknown>>();
    for (const row of media) {
      const issues = await db('media_issues').where({ version_id: versionId, media_id: row.id }).orderBy('issue_type');
      const labels = await db('media_labels').where({ version_id: versionId, media_id: row.id }).orderBy('label');
      const tags = await db('media_tags as mt').join('tags as t', (j) => j.on('t.version_id', 'mt.version_id').andOn('t.id', 'mt.tag_id'))
        .where({ 'mt.version_id': versionId, 'mt.media_id': row.id }).orderBy('t.name').select('t.id', 't.name');
      const clusters = await db('cluster_members').where({ clustering_id: clusteringOf(db, versionId), media_id: row.id });
      const clusterAt = (threshold: number) => clusters.find((c) => c.threshold === threshold)?.cluster_id ?? null;
      const duplicate = issues.find((issue) => issue.issue_type === 'duplicates')?.details;
      const top = row.parent_id ? byId.get(row.parent_id) : row;
      expected.set(row.id, {
        media_id: row.id,
        media_type: row.kind,
        file_name: row.file_name,
        original_path: top.file_name,
        source_kind: sources.get(row.batch_id)!.kind,
        source_location: sources.get(row.batch_id)!.location,
        sha256: row.blob_sha256,
        size_bytes: Number(row.size_bytes),
        format: row.format,
        width: row.width,
        height: row.height,
        duration_ms: row.duration_ms,
        video_id: row.kind === 'VIDEO_FRAME' ? row.parent_id : null,
        frame_index: row.frame_index,
        frame_time_ms: row.frame_time_ms,
        cluster_id_0: clusterAt(0),
        cluster_id_1: clusterAt(1),
        cluster_id_2: clusterAt(2),
        cluster_id_3: clusterAt(3),
        cluster_id_4: clusterAt(4),
        uniqueness_score: row.uniqueness_score,
        duplicate_of: duplicate?.duplicate_of ?? null,
        similarity: duplicate?.similarity ?? null,
        mislabel_score: null,
        suggested_label: null,
        issues: issues.map((issue) => ({ type: issue.issue_type, confidence: issue.confidence, details: issue.details })),
        labels: labels.map((label) => ({ label: label.label, source: label.source, confidence: label.confidence })),
        tags,
        caption: row.caption,
        objects: [],
        custom_metadata: row.custom_metadata,
        created_at: row.created_at.toISOString(),
      });
    }
    return expected;
  }

  it('exports the whole dataset as JSON: one record per image, video and frame, with every field the version holds', async () => {
    const { taskId, entries, status } = await exportWhole({ file_name: 'everything', export_format: 'json' });
    expect(status.download_uri).toMatch(new RegExp(`^http://localhost:8080/api/v1/exports/${taskId}/everything\\.zip\\?expires=\\d+&signature=`));
    expect([...entries.keys()]).toEqual(['metadata.json']);
    const records = jsonRecords(entries);
    const expected = await expectedRecords();
    expect(records.map((record) => record.media_id)).toEqual([...expected.keys()]);
    for (const record of records) {
      const { image_filename: _name, ...rest } = record;
      expect(rest).toEqual(expected.get(record.media_id));
    }

    // The fields hold what was put in: the import, the tag, the duplicate, the frames, the batch.
    const byName = new Map(records.map((record) => [record.file_name as string, record]));
    expect(byName.get('chelsea.jpg')).toMatchObject({
      caption: 'A cat on a blanket',
      labels: [{ label: 'animal', source: 'custom', confidence: null }, { label: 'cat', source: 'custom', confidence: null }],
      tags: [{ id: expect.any(String), name: 'keep' }],
      custom_metadata: { photographer: 'Chelsea' },
      source_kind: 'upload',
    });
    const [chelsea, copy] = [byName.get('chelsea.jpg')!, byName.get('chelsea_copy.jpg')!];
    expect(copy.duplicate_of === chelsea.media_id || chelsea.duplicate_of === copy.media_id).toBe(true);
    expect(records.some((record) => typeof record.similarity === 'number' && record.similarity >= 0.9)).toBe(true);
    const frames = records.filter((record) => record.media_type === 'VIDEO_FRAME');
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(frames.every((frame) => frame.video_id === byName.get('pattern.mp4')!.media_id && frame.original_path === 'pattern.mp4')).toBe(true);
    expect(byName.get('trip/coffee.jpg')).toMatchObject({ source_kind: 'archive', source_location: 'batch.zip', original_path: 'trip/coffee.jpg' });

    // Names in the archive: first come keeps its name; a later one (case aside) is renamed, around names in use.
    const coffeeUpper = byName.get('COFFEE.jpg')!;
    expect(Object.fromEntries(records.map((record) => [record.file_name, record.image_filename]))).toEqual({
      'chelsea.jpg': 'chelsea.jpg',
      'chelsea_copy.jpg': 'chelsea_copy.jpg',
      'coffee.jpg': 'coffee.jpg',
      'astronaut.jpg': 'astronaut.jpg',
      'rocket.jpg': 'rocket.jpg',
      'pattern.mp4': 'pattern.mp4',
      ...Object.fromEntries(frames.map((frame) => [frame.file_name, `pattern.mp4.frames/${String(frame.frame_index).padStart(6, '0')}.jpg`])),
      'COFFEE.jpg': `COFFEE (${coffeeUpper.media_id}).jpg`,
      'coffee (2).jpg': 'coffee (2).jpg',
      'trip/coffee.jpg': 'trip/coffee.jpg',
    });

    // Listed in /tasks like every long operation.
    const task = (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId, task_type: 'EXPORT' }).expect(200)).body.tasks
      .find((t: { task_id: string }) => t.task_id === taskId);
    expect(task).toMatchObject({ task_type: 'EXPORT', status: 'COMPLETED', progress_percentage: 100 });
    expect(task.status_message).toMatch(new RegExp(`^Exported ${records.length} media into everything\\.zip`));
  });

  it('exports the same records as Parquet, typed, read back with hyparquet', async () => {
    const json = jsonRecords((await exportWhole({ file_name: 'same.zip', export_format: 'json' })).entries);
    const { entries } = await exportWhole({ file_name: 'same.zip', export_format: 'parquet' });
    expect([...entries.keys()]).toEqual(['metadata.parquet']);
    const bytes = entries.get('metadata.parquet')!;
    const file = new Uint8Array(bytes).buffer;
    const rows = await parquetReadObjects({ file });
    const plain = rows.map((row) => Object.fromEntries(Object.entries(row).map(([key, value]) => [
      key,
      typeof value === 'bigint' ? Number(value) : value instanceof Date ? value.toISOString() : value,
    ])));
    expect(plain).toEqual(json);
    const types = Object.fromEntries(parquetMetadata(file).schema.slice(1).map((element) => [element.name, element.converted_type ?? element.type]));
    expect(types).toMatchObject({
      media_id: 'UTF8', size_bytes: 'INT64', width: 'INT32', frame_index: 'INT32', uniqueness_score: 'DOUBLE',
      issues: 'JSON', labels: 'JSON', tags: 'JSON', objects: 'JSON', custom_metadata: 'JSON', created_at: 'TIMESTAMP_MILLIS',
    });
  });

  it('adds images/ with every item\'s own bytes under its image_filename when include_images=true', async () => {
    const { entries } = await exportWhole({ file_name: 'with images', export_format: 'json', include_images: 'true' });
    const records = jsonRecords(entries);
    expect([...entries.keys()].sort()).toEqual(['metadata.json', ...records.map((record) => `images/${record.image_filename}`)].sort());
    for (const record of records) expect(sha256(entries.get(`images/${record.image_filename}`)!)).toBe(record.sha256);
    expect(sha256(entries.get('images/chelsea.jpg')!)).toBe(sha256(fs.readFileSync(photo('chelsea'))));
  });

  it('exports COCO annotations that pycocotools reads: decodable images and frames, labels as categories', async () => {
    const json = jsonRecords((await exportWhole({ file_name: 'reference', export_format: 'json' })).entries);
    const { entries } = await exportWhole({ file_name: 'coco', export_format: 'coco', include_images: 'true' });
    const annotationFile = path.join(scratch, 'annotations.json');
    fs.writeFileSync(annotationFile, entries.get('annotations.json')!);
    const coco = readWithPycocotools(annotationFile);

    const pictures = json.filter((record) => record.media_type !== 'VIDEO' && record.width);
    expect(coco.images.map((image) => image.media_id)).toEqual(pictures.map((record) => record.media_id));
    for (const [i, image] of coco.images.entries()) {
      const record = pictures[i];
      expect(image).toMatchObject({ file_name: record.image_filename, width: record.width, height: record.height });
      expect(image.labels).toEqual((record.labels as Array<{ label: string }>).map((label) => label.label).sort());
      for (const box of image.boxes) expect(box).toEqual([0, 0, record.width, record.height]);
      expect(entries.has(`images/${image.file_name}`)).toBe(true);
    }
    expect(coco.categories).toEqual(['animal', 'cat', 'rocket']);
    expect(coco.annotations).toBe(3);
  });

  it('exports a selection: media by id (a video with its frames) and a cluster less excluded media', async () => {
    const { db } = stack.deps;
    const chelsea = await mediaIdOf('chelsea.jpg');
    const video = await mediaIdOf('pattern.mp4');
    const frames: string[] = await db('media').where({ version_id: versionId, parent_id: video }).whereNull('repeat_of_frame').pluck('id');
    const repeats = new Set<string>(await db('media').where({ version_id: versionId }).whereNotNull('repeat_of_frame').pluck('id'));
    expect(repeats.size).toBeGreaterThan(0);
    const [biggest] = await db('clusters').where({ clustering_id: clusteringOf(db, versionId), threshold: 4 }).orderBy('size', 'desc').limit(1);
    const members: string[] = await db('cluster_members').where({ clustering_id: clusteringOf(db, versionId), cluster_id: biggest.id }).pluck('media_id');
    expect(members.length).toBeGreaterThanOrEqual(2);
    const excluded = members[0];
    const body = {
      media_selection: [
        { type: 'media', payload: { media_ids: [chelsea, video] } },
        { type: 'cluster', payload: { cluster_id: biggest.id, cluster_filters: { entity_type: 'IMAGES' }, exclude_media_ids: [excluded] } },
      ],
    };
    const { id } = (await stack.request.post(`${exportsOf(datasetId)}/export_entities_async`).query({ export_format: 'json' }).send(body).expect(200)).body;
    const status = await finished(id);
    expect(status).toMatchObject({ file_name: 'export_me_export.zip', export_format: 'json', include_images: false, selection: { n_media: 2, n_clusters: 1 } });
    expect(status.download_uri).toContain(`/api/v1/exports/${id}/export_me_export.zip?`);
    const records = jsonRecords(await readZip((await download(status.download_uri)).body));
    const wanted = new Set([chelsea, video, ...frames, ...members.filter((member) => member !== excluded && !repeats.has(member))]);
    expect(records.map((record) => record.media_id).sort()).toEqual([...wanted].sort());
  });

  it('exports an OBJECTS cluster as the images holding one of its objects, and refuses an object cluster the dataset lacks', async () => {
    const { db } = stack.deps;
    // Objects as object detection and its clustering leave them (this dataset was not enriched): two clusters at each threshold.
    const [chelsea, rocket, coffee] = [await mediaIdOf('chelsea.jpg'), await mediaIdOf('rocket.jpg'), await mediaIdOf('coffee.jpg')];
    const [animals, things] = [Array.from({ length: 5 }, () => randomUUID()), Array.from({ length: 5 }, () => randomUUID())];
    const object = (mediaId: string, label: string, clusterIds: string[]) => ({
      version_id: versionId, media_id: mediaId, label, confidence: 0.9, box_x: 0.1, box_y: 0.1, box_width: 0.5, box_height: 0.5, cluster_ids: clusterIds,
    });
    const objects = [object(chelsea, 'cat', animals), object(chelsea, 'cat', animals), object(rocket, 'rocket', things), object(coffee, 'cup', things)];
    const objectIds: string[] = (await db('media_objects').insert(objects).returning('id')).map((row: { id: string }) => row.id);
    try {
      const cluster = (clusterId: string, exclude: string[] = []) => ({ type: 'cluster', payload: { cluster_id: clusterId, cluster_filters: { entity_type: 'OBJECTS' }, exclude_media_ids: exclude } });
      const exported = async (items: unknown[]) => {
        const { id } = (await stack.request.post(`${exportsOf(datasetId)}/export_entities_async`).query({ export_format: 'json' }).send({ media_selection: items }).expect(200)).body;
        const status = await finished(id);
        return { status, ids: jsonRecords(await readZip((await download(status.download_uri)).body)).map((record) => record.media_id).sort() };
      };
      // A coarse threshold's cluster, a fine one's less an image, and the same cluster twice (left out only if every mention leaves it out).
      const first = await exported([cluster(animals[4]), cluster(things[0], [coffee]), cluster(things[0])]);
      expect(first.status).toMatchObject({ selection: { n_media: 0, n_clusters: 2 } });
      expect(first.ids).toEqual([chelsea, rocket, coffee].sort());
      expect((await exported([cluster(things[2], [coffee])])).ids).toEqual([rocket]);

      // An image cluster's id is no object cluster, and the reverse: 422 naming it, nothing started.
      const [imageCluster] = await db('clusters').where({ clustering_id: clusteringOf(db, versionId) }).limit(1).pluck('id');
      const tasks = await db('tasks').count({ n: '*' });
      const refused = async (items: unknown[]) => (await stack.request.post(`${exportsOf(datasetId)}/export_entities_async`).query({ export_format: 'json' }).send({ media_selection: items }).expect(422)).body;
      expect(await refused([cluster(imageCluster)])).toEqual({ detail: `body.media_selection: object clusters (entity_type OBJECTS) not in this dataset: ${imageCluster}` });
      const imageItem = { type: 'cluster', payload: { cluster_id: animals[0], cluster_filters: { entity_type: 'IMAGES' }, exclude_media_ids: [] } };
      expect(await refused([imageItem])).toEqual({ detail: `body.media_selection: clusters not in this dataset: ${animals[0]}` });
      expect(await db('tasks').count({ n: '*' })).toEqual(tasks);
    } finally {
      await db('media_objects').where({ version_id: versionId }).whereIn('id', objectIds).delete();
    }
  });

  it('leaves out media that arrived after the export was asked for', async () => {
    const { db } = stack.deps;
    const late = await mediaIdOf('astronaut.jpg');
    const before = (await db('media').where({ version_id: versionId, id: late }).first('created_at')).created_at;
    // As if its batch had come in after the request: the export reads the version as it was then.
    await db('media').where({ version_id: versionId, id: late }).update({ created_at: db.raw(`now() + interval '1 hour'`) });
    try {
      const records = jsonRecords((await exportWhole({ file_name: 'then', export_format: 'json', include_repeated_frames: 'true' })).entries);
      expect(records).toHaveLength(12);
      expect(records.map((record) => record.media_id)).not.toContain(late);
    } finally {
      await db('media').where({ version_id: versionId, id: late }).update({ created_at: before });
    }
  });

  it('refuses bad requests with 422, unknown exports with 404 and a dataset that is not READY with 409, starting nothing', async () => {
    const base = exportsOf(datasetId);
    const exportsBefore = (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId, task_type: 'EXPORT' }).expect(200)).body.total;
    const context = (query: Record<string, string>) => stack.request.get(`${base}/export_context_async`).query(query);
    expect((await context({ export_format: 'json' }).expect(422)).body).toEqual({ detail: 'query.file_name: file_name is required' });
    expect((await context({ file_name: 'x', export_format: 'csv' }).expect(422)).body)
      .toEqual({ detail: 'query.export_format: export_format must be one of json, parquet, coco, yolo, hf, imagefolder' });
    expect((await context({ file_name: 'x' }).expect(422)).body.detail).toMatch(/^query\.export_format: /);
    expect((await context({ file_name: 'x', export_format: 'json', include_images: 'maybe' }).expect(422)).body)
      .toEqual({ detail: 'query.include_images: include_images must be true or false' });
    expect((await context({ file_name: '../escape', export_format: 'json' }).expect(422)).body)
      .toEqual({ detail: 'query.file_name: file_name must be a file name, not a path' });

    const entities = (body: unknown, query: Record<string, string> = { export_format: 'json' }) =>
      stack.request.post(`${base}/export_entities_async`).query(query).send(body as object);
    const someMedia = await mediaIdOf('rocket.jpg');
    expect((await entities({}).expect(422)).body).toEqual({ detail: 'body.media_selection: media_selection must be an array of items' });
    expect((await entities({ media_selection: [] }).expect(422)).body).toEqual({ detail: 'body.media_selection: media_selection must not be empty' });
    expect((await entities({ media_selection: [{ type: 'video', payload: {} }] }).expect(422)).body.detail).toMatch(/^body\.media_selection\.0/);
    expect((await entities({ media_selection: [{ type: 'media', payload: { media_ids: ['nope'] } }] }).expect(422)).body)
      .toEqual({ detail: 'body.media_selection.0.payload.media_ids.0: media_ids must be UUIDs' });
    expect((await entities({ media_selection: [{ type: 'cluster', payload: { cluster_id: someMedia, cluster_filters: { entity_type: 'FACES' } } }] }).expect(422)).body)
      .toEqual({ detail: 'body.media_selection.0.payload.cluster_filters.entity_type: entity_type must be IMAGES or OBJECTS' });
    const stranger = '0b6b1b9e-5d0c-4c3e-9d6f-2f4f0f1a2b3c';
    expect((await entities({ media_selection: [{ type: 'media', payload: { media_ids: [someMedia, stranger] } }] }).expect(422)).body)
      .toEqual({ detail: `body.media_selection: media not in this dataset: ${stranger}` });
    expect((await entities({ media_selection: [{ type: 'cluster', payload: { cluster_id: someMedia } }] }).expect(422)).body)
      .toEqual({ detail: `body.media_selection: clusters not in this dataset: ${someMedia}` });
    expect((await entities({ media_selection: [{ type: 'media', payload: { media_ids: [someMedia] } }] }, {}).expect(422)).body.detail)
      .toMatch(/^query\.export_format: /);

    const status = (query: Record<string, string>, id = datasetId) => stack.request.get(`${exportsOf(id)}/export_status`).query(query);
    expect((await status({}).expect(422)).body.detail).toMatch(/^query\.export_task_id: /);
    expect((await status({ export_task_id: stranger }).expect(404)).body).toEqual({ detail: 'Export not found' });
    const creation = (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId, task_type: 'DATASET_CREATION' }).expect(200)).body.tasks[0];
    expect((await status({ export_task_id: creation.task_id }).expect(404)).body).toEqual({ detail: 'Export not found' });
    await stack.request.get(`${exportsOf(stranger)}/export_context_async`).query({ file_name: 'x', export_format: 'json' }).expect(404);

    const { datasetId: uploading } = await newDatasetWithTransaction(stack, 'not yet indexed');
    expect((await stack.request.get(`${exportsOf(uploading)}/export_context_async`).query({ file_name: 'x', export_format: 'json' }).expect(409)).body)
      .toEqual({ detail: 'Dataset is not READY (status UPLOADING)' });
    expect((await stack.request.post(`${exportsOf(uploading)}/export_entities_async`).query({ export_format: 'json' })
      .send({ media_selection: [{ type: 'media', payload: { media_ids: [someMedia] } }] }).expect(409)).body)
      .toEqual({ detail: 'Dataset is not READY (status UPLOADING)' });
    // An export of one dataset is not found through another.
    const ours = (await context({ file_name: 'mine', export_format: 'json' }).expect(200)).body.id;
    expect((await status({ export_task_id: ours }, uploading).expect(404)).body).toEqual({ detail: 'Export not found' });
    await finished(ours);

    const exportsAfter = (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId, task_type: 'EXPORT' }).expect(200)).body.total;
    expect(exportsAfter).toBe(exportsBefore + 1);
  });

  it('refuses to abort an export (409, as for every task but a creation), which then completes', async () => {
    const { id } = (await stack.request.get(`${exportsOf(datasetId)}/export_context_async`).query({ file_name: 'kept', export_format: 'json' }).expect(200)).body;
    expect((await stack.request.post(`/api/v1/tasks/${id}/abort`).expect(409)).body).toEqual({ detail: 'Only DATASET_CREATION tasks can be aborted (this is EXPORT)' });
    expect(await finished(id)).toMatchObject({ status: 'COMPLETED', error_message: null });
  });

  it('lists export tasks only when asked for by task_type=EXPORT: /tasks shows the task types the spec lists', async () => {
    const listed = async (query: Record<string, string>) =>
      (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId, page_size: '50', ...query }).expect(200)).body.tasks.map((task: { task_type: string }) => task.task_type);
    expect(await listed({ task_type: 'EXPORT' })).toContain('EXPORT');
    expect(await listed({})).not.toContain('EXPORT');
    expect((await stack.request.get('/api/v1/tasks/filters').expect(200)).body.task_types).not.toContain('EXPORT');
  });

  it('stops packaging half way when aborted: no archive is stored and no scratch file is left', async () => {
    const { db, store } = stack.deps;
    const taskId = '5d6e7f80-1a2b-4c3d-8e9f-0a1b2c3d4e5f';
    await insertTask(db, { taskId, datasetId, taskType: 'EXPORT', createdBy: stack.deps.defaultUser.id, input: {}, statusMessage: 'Queued' });
    const input: ExportInput = { taskId, datasetId, datasetName: 'export me', versionId, format: 'json', includeImages: true, fileName: 'aborted.zip' };
    const stagingDir = path.join(scratch, 'staging');
    const activities = createExportActivities({ db, store, stagingDir });
    const environment = new MockActivityEnvironment();
    const heartbeats: unknown[] = [];
    // The first heartbeat comes once the first page is read and its images are going in.
    environment.on('heartbeat', (details) => {
      // The 5 s liveness timer's heartbeats carry no details: only the activity's own are counted here.
      if (details === undefined) return;
      heartbeats.push(details);
      environment.cancel();
    });
    await expect(environment.run(activities.packageExport, input)).rejects.toBeInstanceOf(CancelledFailure);
    expect(heartbeats).toEqual([{ done: 0 }]);
    expect(await store.exists(exportArchiveKey(taskId, 'aborted.zip'))).toBe(false);
    expect(fs.readdirSync(stagingDir)).toEqual([]);
    expect(await db('tasks').where({ task_id: taskId }).first('status', 'phase')).toEqual({ status: 'RUNNING', phase: 'packaging' });
  });

  it('fails an export whose file is missing from the store, naming it, and stores nothing', async () => {
    const rocket = await stack.deps.db('media').where({ version_id: versionId, file_name: 'rocket.jpg' }).first('id', 'blob_sha256');
    const blob = path.join(stack.deps.config.dataDir, 'objects', blobKey(rocket.blob_sha256));
    fs.renameSync(blob, `${blob}.aside`);
    try {
      const { id } = (await stack.request.get(`${exportsOf(datasetId)}/export_context_async`)
        .query({ file_name: 'broken', export_format: 'json', include_images: 'true' }).expect(200)).body;
      expect(await finished(id)).toEqual({
        status: 'FAILED',
        download_uri: null,
        progress_percentage: expect.any(Number),
        error_message: `The file of rocket.jpg (media ${rocket.id}) is missing from the object store`,
        file_name: 'broken.zip',
        export_format: 'json',
        include_images: true,
        selection: null,
      });
      expect(await stack.deps.store.exists(exportArchiveKey(id, 'broken.zip'))).toBe(false);
    } finally {
      fs.renameSync(`${blob}.aside`, blob);
    }
  });

  it('serves an archive only behind a valid, unexpired signature for its own name', async () => {
    const { taskId, status } = await exportWhole({ file_name: 'signed', export_format: 'json' });
    const url = new URL(status.download_uri as string);
    const tampered = url.search.replace(/signature=([^&]+)/, (_, signature: string) => `signature=${signature.slice(0, -2)}AA`);
    expect((await stack.request.get(url.pathname + tampered).expect(403)).body).toEqual({ detail: 'This download link is invalid or has expired' });
    const expired = stack.deps.signer.exportPath(taskId, 'signed.zip', Date.now() - 2 * stack.deps.signer.ttlSeconds * 1000);
    expect((await stack.request.get(expired).expect(403)).body).toEqual({ detail: 'This download link is invalid or has expired' });
    const renamed = url.pathname.replace('signed.zip', 'other.zip') + url.search;
    expect((await stack.request.get(renamed).expect(404)).body).toEqual({ detail: 'Export not found' });
    const response = await download(status.download_uri as string);
    expect(response.headers['content-disposition']).toBe('attachment; filename="signed.zip"');
  });
});
