import { headVersionId } from '../support/versions';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { eventually, makeVideo, photo, PHOTO_NAMES } from '../support/media';
import { newDatasetWithTransaction as createDataset, uploadFiles as upload, waitForTask } from '../support/datasets';
import { blobKey } from '../../lib/storage/objectStore';
import { startTestStack } from '../support/testStack';
import { clusteringOf } from '../../db/repositories/clusteringOf';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

describe('dataset creation from local files, end to end', () => {
  let stack: Stack;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'creation-'));

  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('indexes real photos, a near-duplicate, a broken file and a video into a READY dataset', async () => {
    const { datasetId, transId } = await createDataset(stack, 'birds and things');
    const copy = path.join(scratch, 'chelsea_copy.jpg');
    await sharp(photo('chelsea')).resize(300).jpeg({ quality: 60 }).toFile(copy);
    const broken = path.join(scratch, 'broken.jpg');
    fs.writeFileSync(broken, Buffer.from('this is not a jpeg at all'));
    const video = makeVideo(3);
    const mov = makeVideo(2, 'mov');
    const png = path.join(scratch, 'coffee.png');
    await sharp(photo('coffee')).png().toFile(png);
    const webp = path.join(scratch, 'rocket.webp');
    await sharp(photo('rocket')).webp().toFile(webp);

    await upload(stack, datasetId, transId, PHOTO_NAMES.slice(0, 4).map(photo)).expect(202);
    await upload(stack, datasetId, transId, [...PHOTO_NAMES.slice(4).map(photo), copy, broken, video, mov, png, webp]).expect(202);
    const before = await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200);
    expect(before.body.status_new).toBe('UPLOADING');

    const accepted = await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202);
    const task = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
    expect(task).toMatchObject({
      task_id: accepted.body.task_id,
      dataset_id: datasetId,
      dataset_name: 'birds and things',
      dataset_status: 'READY',
      task_type: 'DATASET_CREATION',
      status: 'COMPLETED',
      progress_percentage: 100,
      error_message: null,
      created_by: stack.deps.defaultUser.email,
    });
    expect(task.end_time).toMatch(/Z$/);

    const dataset = (await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body;
    expect(dataset).toMatchObject({ status_new: 'READY', status: 'READY', progress: 100, n_images: 12, n_videos: 2 });

    // The workflow id is the task id, tagged so the Temporal UI can filter by dataset, type and creator.
    const description = await stack.deps.temporal.workflow.getHandle(task.task_id).describe();
    expect(description.type).toBe('datasetCreationWorkflow');
    expect(description.searchAttributes).toMatchObject({
      DatasetId: [datasetId],
      TaskType: ['DATASET_CREATION'],
      CreatedBy: [stack.deps.defaultUser.email],
    });

    const { db } = stack.deps;
    const media = await db('media').where({ version_id: await headVersionId(db, datasetId) });
    const byName = (name: string) => media.find((m) => m.file_name === name)!;
    expect(media.filter((m) => m.kind === 'VIDEO_FRAME').length).toBeGreaterThanOrEqual(5);
    expect(byName('chelsea.jpg')).toMatchObject({ width: 384, height: 255, format: 'jpeg', embedded: true });
    expect(byName('pattern.mp4')).toMatchObject({ kind: 'VIDEO', width: 320, height: 240 });
    expect(byName('pattern.mp4').duration_ms).toBeGreaterThan(2500);
    expect(byName('pattern.mov')).toMatchObject({ kind: 'VIDEO', width: 320, height: 240 });
    expect(byName('coffee.png')).toMatchObject({ format: 'png', embedded: true });
    expect(byName('rocket.webp')).toMatchObject({ format: 'webp', embedded: true });

    const issues = await db('media_issues').where({ version_id: await headVersionId(db, datasetId) });
    const issuesOf = (name: string) => issues.filter((i) => i.media_id === byName(name).id).map((i) => i.issue_type);
    expect(issuesOf('broken.jpg')).toEqual(['broken']);
    expect(issuesOf('chelsea_copy.jpg')).toContain('duplicates');
    expect(issuesOf('chelsea.jpg')).toContain('duplicates');
    const duplicate = issues.find((i) => i.media_id === byName('chelsea_copy.jpg').id && i.issue_type === 'duplicates');
    expect(duplicate.details.duplicate_of).toBe(byName('chelsea.jpg').id);
    expect(duplicate.details.similarity).toBeGreaterThan(0.9);
    // coffee.png and rocket.webp are lossless re-encodings: duplicates of their JPEG originals.
    expect(issuesOf('coffee.png')).toContain('duplicates');
    expect(issuesOf('camera.jpg')).not.toContain('duplicates');

    for (const item of media.filter((m) => m.embedded)) {
      expect(item.uniqueness_score).toBeGreaterThanOrEqual(0);
      expect(item.uniqueness_score).toBeLessThanOrEqual(1);
    }
    expect(byName('chelsea_copy.jpg').uniqueness_score).toBeLessThan(byName('camera.jpg').uniqueness_score);

    // Five clustering levels, each covering every image and frame once; the copy joins its original at level 0.
    const clusterable = media.filter((m) => m.kind !== 'VIDEO').length;
    for (let threshold = 0; threshold <= 4; threshold++) {
      const members = await db('cluster_members').where({ clustering_id: clusteringOf(db, await headVersionId(db, datasetId)), threshold });
      expect(members).toHaveLength(clusterable);
    }
    const level0 = await db('cluster_members').where({ clustering_id: clusteringOf(db, await headVersionId(db, datasetId)), threshold: 0 });
    const clusterOf = (name: string) => level0.find((m) => m.media_id === byName(name).id)!.cluster_id;
    expect(clusterOf('chelsea_copy.jpg')).toBe(clusterOf('chelsea.jpg'));
    expect(clusterOf('camera.jpg')).not.toBe(clusterOf('chelsea.jpg'));

    // Blobs are content-addressed in the object store.
    expect(await stack.deps.store.exists(blobKey(byName('chelsea.jpg').blob_sha256))).toBe(true);

    // The commit refreshed the planner's statistics (a manual ANALYZE: autovacuum's sets last_autoanalyze),
    // so the first Explore is planned for the rows the task wrote.
    const analyzed = await eventually(
      async () => (await db.raw(`SELECT relname, last_analyze FROM pg_stat_user_tables WHERE relname IN ('media', 'cluster_members', 'media_issues')`)).rows,
      (rows: Array<{ last_analyze: Date | null }>) => rows.length === 3 && rows.every((row) => row.last_analyze !== null),
      15_000,
      'explored tables analyzed',
    );
    for (const row of analyzed) expect(row.last_analyze!.getTime()).toBeGreaterThanOrEqual(new Date(task.start_time).getTime());
    const { rows: [members] } = await db.raw(`SELECT reltuples FROM pg_class WHERE relname = 'cluster_members'`);
    expect(members.reltuples).toBeGreaterThanOrEqual(5 * clusterable);

    // ...and counted the issues per cluster, so a page filtered by one issue type reads its clusters in order.
    const head = await db('dataset_versions').where({ id: await headVersionId(db, datasetId) }).first('id', 'facets_counted');
    expect([...head.facets_counted].sort()).toEqual(['issue', 'label', 'tag']);
    const counted = await db('cluster_facet_counts').where({ version_id: head.id, threshold: 0, facet: 'issue:duplicates' }).sum({ n: 'n' }).first();
    expect(Number(counted!.n)).toBe(issues.filter((issue) => issue.issue_type === 'duplicates').length);
  });

  it('refuses bad uploads with the spec codes and changes nothing', async () => {
    const { datasetId, transId } = await createDataset(stack, 'refusals');
    const archive = path.join(scratch, 'photos.zip');
    fs.writeFileSync(archive, 'PK');
    const text = path.join(scratch, 'notes.txt');
    fs.writeFileSync(text, 'hello');

    expect((await upload(stack, datasetId, transId, [photo('coffee')], 'files[]').expect(422)).body.detail).toBe(
      'File parts must use the field name "files" (got "files[]")',
    );
    expect((await upload(stack, datasetId, transId, [photo('coffee'), archive]).expect(400)).body.detail).toMatch(
      /^Archives are not accepted for dataset creation \(photos\.zip\)/,
    );
    expect((await upload(stack, datasetId, transId, [text]).expect(400)).body.detail).toMatch(/^Unsupported file type: notes\.txt/);
    expect(await stack.deps.db('uploaded_files').where({ dataset_id: datasetId }).count()).toEqual([{ count: '0' }]);
    expect(fs.readdirSync(path.join(stack.deps.config.dataDir, 'tmp', 'uploads'))).toEqual([]);

    await stack.request.get('/api/v1/ingestion/new_dataset').expect(400);
    await upload(stack, '6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11', transId, [photo('coffee')]).expect(404);
    expect((await upload(stack, datasetId, 999999, [photo('coffee')]).expect(404)).body.detail).toMatch(/^Transaction 999999 not found/);
    expect((await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(400)).body.detail).toBe(
      `Transaction ${transId} has no uploaded files`,
    );
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('UPLOADING');
  });

  it('replaces a file sent twice in a transaction instead of duplicating it', async () => {
    const { datasetId, transId } = await createDataset(stack, 'resend');
    await upload(stack, datasetId, transId, [photo('rocket')]).expect(202);
    await upload(stack, datasetId, transId, [photo('rocket')]).expect(202);
    expect(await stack.deps.db('uploaded_files').where({ dataset_id: datasetId }).count()).toEqual([{ count: '1' }]);
  });
});
