import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createVersionActivities } from '../../activities/versions';
import { createDb } from '../../db/connection';
import { CLUSTERING_OF } from '../../db/repositories/clusteringOf';
import { createDataset } from '../../db/repositories/datasets';
import { copyVersion, dropUnusedVersions, findVersion, headVersion, setHeadVersion } from '../../db/repositories/versions';
import { replaceAnalysis } from '../../services/analysisResults';
import { createReadyDataset } from '../support/datasets';
import { eventually, photo } from '../support/media';
import { seedSyntheticDataset } from '../../scripts/bench/syntheticDataset';
import { startTestStack } from '../support/testStack';

type Cluster = { cluster_id: string; n_images: number; previews: Array<{ media_id: string; file_name: string; labels: string[] | null }> };

describe('dataset versions: a copy of a version is the same data, sharing bytes and vectors', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let sourceId: string;

  beforeAll(async () => {
    stack = await startTestStack();
    sourceId = await createReadyDataset(stack, 'source', ['chelsea', 'coffee', 'astronaut', 'rocket', 'camera'].map(photo));
  }, 180_000);
  afterAll(() => stack.close());

  const explore = async (datasetId: string, query: Record<string, string> = {}) =>
    (await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', ...query }).expect(200)).body.clusters as Cluster[];
  const shape = (clusters: Cluster[]) => clusters.map((c) => ({ id: c.cluster_id, n: c.n_images, media: c.previews.map((p) => p.media_id) }));

  /** Every copied row of a version and of the clustering it reads, as digests per table. */
  const fingerprint = async (id: string) =>
    (
      await stack.deps.db.raw(
        `SELECT (SELECT md5(string_agg(id || coalesce(caption, '') || coalesce(uniqueness_score::text, ''), ',' ORDER BY id)) FROM media WHERE version_id = :id) AS media,
                (SELECT md5(string_agg(media_id || ':' || threshold || ':' || cluster_id, ',' ORDER BY media_id, threshold)) FROM cluster_members WHERE clustering_id = ${CLUSTERING_OF.replace('?', ':id')}) AS members,
                (SELECT md5(string_agg(id || ':' || size, ',' ORDER BY id)) FROM clusters WHERE clustering_id = ${CLUSTERING_OF.replace('?', ':id')}) AS clusters,
                (SELECT md5(string_agg(media_id || issue_type, ',' ORDER BY media_id, issue_type)) FROM media_issues WHERE version_id = :id) AS issues,
                (SELECT md5(string_agg(media_id || label, ',' ORDER BY media_id, label)) FROM media_labels WHERE version_id = :id) AS labels,
                (SELECT md5(string_agg(media_id || ':' || tag_id, ',' ORDER BY media_id, tag_id)) FROM media_tags WHERE version_id = :id) AS tags`,
        { id },
      )
    ).rows[0];

  it('copies every row of a version into a new dataset in one activity, and a repeat adds nothing', async () => {
    const { db } = stack.deps;
    const chelsea = (await explore(sourceId)).flatMap((c) => c.previews).find((p) => p.file_name === 'chelsea.jpg')!.media_id;
    const tag = (await stack.request.post(`/api/v1/dataset/${sourceId}/tags`).send({ name: 'keep' }).expect(201)).body;
    await stack.request.post(`/api/v1/dataset/${sourceId}/tags/${tag.id}/media`).send({ media_ids: [chelsea] }).expect(200);
    const source = await headVersion(db, sourceId);
    const vectorRowsBefore = await db('vector_points').count({ n: '*' }).first();

    const copyOwner = stack.deps.defaultUser;
    const workspaceId = (await db('datasets').where({ id: sourceId }).first()).workspace_id;
    const copy = await createDataset(db, { name: 'copy', ownerId: copyOwner.id, workspaceId, status: 'READY' });
    await db('datasets').where({ id: copy.id }).update({ embedding_config: JSON.stringify({ model: 'copied', dim: 1 }) });
    const versionId = randomUUID();
    const activities = createVersionActivities({ db });
    const heartbeats: unknown[] = [];
    const env = new MockActivityEnvironment();
    env.on('heartbeat', (details) => heartbeats.push(details));
    type Copied = Awaited<ReturnType<typeof activities.copyDatasetVersion>>;
    const copyIn = (environment: MockActivityEnvironment) =>
      environment.run(activities.copyDatasetVersion, { sourceVersionId: source.id, targetDatasetId: copy.id, versionId }) as Promise<Copied>;
    const clusteringRows = async () => Number((await db('cluster_members').count({ n: '*' }).first())!.n) + Number((await db('clusters').count({ n: '*' }).first())!.n);
    const clusteringRowsBefore = await clusteringRows();
    const result = await copyIn(env);
    expect(result.rows).toMatchObject({ media: 5, tags: 1, media_tags: 1, map_points: 5 });
    expect(heartbeats).toEqual(['media', 'tags', 'media_issues', 'media_labels', 'media_objects', 'media_tags', 'duplicate_decisions', 'map_points']);
    // The clustering is shared, not copied: the copy reads the source's, and no cluster or membership row was added.
    expect((await db('dataset_versions').where({ id: versionId }).first()).clustering_id).toBe(source.clustering_id);
    expect(await clusteringRows()).toBe(clusteringRowsBefore);
    // Repeated (a retried activity): nothing is copied twice.
    expect((await copyIn(new MockActivityEnvironment())).rows).toEqual({});
    expect((await db('media').where({ version_id: versionId }).count({ n: '*' }).first())!.n).toBe('5');

    await setHeadVersion(db, copy.id, versionId);
    // Same clusters, ids, previews and tags; not one vector written.
    expect(shape(await explore(copy.id))).toEqual(shape(await explore(sourceId)));
    expect(shape(await explore(copy.id, { threshold: '3' }))).toEqual(shape(await explore(sourceId, { threshold: '3' })));
    const tagged = await explore(copy.id, { tags: JSON.stringify([tag.id]) });
    expect(tagged.flatMap((c) => c.previews.map((p) => p.file_name))).toEqual(['chelsea.jpg']);
    expect(await db('vector_points').count({ n: '*' }).first()).toEqual(vectorRowsBefore);
    // Visual search on the copy reads the shared vectors.
    const similar = await explore(copy.id, { anchor_type: 'MEDIA', anchor_media_id: chelsea });
    expect(similar[0].previews[0].media_id).toBe(chelsea);
  });

  it('survives the death of the copying connection mid-copy, as when its worker is killed: all or nothing, and the retry is exact', async () => {
    const { db } = stack.deps;
    const { versionId } = await seedSyntheticDataset(db, 40_000, 4);
    const workspaceId = (await db('datasets').where({ id: sourceId }).first()).workspace_id;
    const target = await createDataset(db, { name: 'copied twice', ownerId: stack.deps.defaultUser.id, workspaceId, status: 'READY' });
    const copy = { sourceVersionId: versionId, targetDatasetId: target.id, versionId: randomUUID() };
    // The doomed copy runs on connections of its own, like a worker's.
    const doomedDb = createDb(stack.env.DATABASE_URL!, 2);
    try {
      const doomed = new MockActivityEnvironment().run(createVersionActivities({ db: doomedDb }).copyDatasetVersion, copy);
      const outcome = doomed.then(() => 'completed', (error: Error) => error.message);
      const killed = await eventually(
        async () =>
          (await db.raw(`SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
                         WHERE state = 'active' AND query LIKE 'INSERT INTO % (version_id, %' AND pid <> pg_backend_pid()`)).rows,
        (rows: unknown[]) => rows.length > 0,
        60_000,
        'the copy inserting rows',
      );
      expect(killed).toEqual([{ killed: true }]);
      expect(await outcome).toMatch(/terminat/i);
    } finally {
      await doomedDb.destroy();
    }
    // Nothing of the copy is left.
    expect(await db('dataset_versions').where({ id: copy.versionId })).toEqual([]);
    expect(await db('media').where({ version_id: copy.versionId }).count({ n: '*' }).first()).toEqual({ n: '0' });

    // The retry, with the same input, copies every row exactly.
    await new MockActivityEnvironment().run(createVersionActivities({ db }).copyDatasetVersion, copy);
    const source = await fingerprint(versionId);
    expect(Object.values(source).every(Boolean)).toBe(true);
    expect(await fingerprint(copy.versionId)).toEqual(source);
  }, 180_000);

  it('copies a version a range of media ids at a time, parents before frames, the same rows as one statement would', async () => {
    const { db } = stack.deps;
    const { versionId, datasetId } = await seedSyntheticDataset(db, 300, 4);
    // Frames of a video whose ids sort before it and after it, so a range would meet a frame before its video.
    const [video] = await db('media').where({ version_id: versionId }).orderBy('id', 'desc').limit(1).pluck('id');
    await db('media').where({ version_id: versionId, id: video }).update({ kind: 'VIDEO' });
    const frames = ['00000000-0000-4000-8000-000000000001', 'ffffffff-0000-4000-8000-000000000001'];
    await db('media').insert(frames.map((id, i) => ({ version_id: versionId, id, kind: 'VIDEO_FRAME', parent_id: video, frame_index: i, batch_id: randomUUID(), file_name: `f${i}.jpg`, blob_sha256: 'a'.repeat(64) })));
    const source = (await findVersion(db, versionId))!;
    const copyId = randomUUID();
    const rows = await copyVersion(db, source, datasetId, copyId, undefined, 30);
    expect(rows.media).toBe(302);
    expect(await fingerprint(copyId)).toEqual(await fingerprint(versionId));
  });

  it('re-analysing a shared clustering writes a new one for that version only; the last version reading a clustering releases it', async () => {
    const { db } = stack.deps;
    const { versionId } = await seedSyntheticDataset(db, 300, 4);
    const shared = (await findVersion(db, versionId))!.clustering_id;
    const workspaceId = (await db('datasets').where({ id: sourceId }).first()).workspace_id;
    const copyInto = async (name: string) => {
      const target = await createDataset(db, { name, ownerId: stack.deps.defaultUser.id, workspaceId, status: 'READY' });
      const copy = { sourceVersionId: versionId, targetDatasetId: target.id, versionId: randomUUID() };
      await new MockActivityEnvironment().run(createVersionActivities({ db }).copyDatasetVersion, copy);
      return { datasetId: target.id, versionId: copy.versionId };
    };
    const first = await copyInto('first reader');
    const second = await copyInto('second reader');
    const rowsOf = async (clusteringId: string) =>
      Number((await db('cluster_members').where({ clustering_id: clusteringId }).count({ n: '*' }).first())!.n) +
      Number((await db('clusters').where({ clustering_id: clusteringId }).count({ n: '*' }).first())!.n);
    const sharedRows = await rowsOf(shared);
    // Five memberships per media item, and clusters of 1, 3, 10, 30 and 100 (syntheticDataset's sizes).
    expect(sharedRows).toBe(300 * 5 + 300 + 300 / 3 + 300 / 10 + 300 / 30 + 300 / 100);

    // A re-analysis of the source: one cluster of every media item at each threshold.
    const media: string[] = await db('media').where({ version_id: versionId }).orderBy('id').pluck('id');
    const clusters = [0, 1, 2, 3, 4].map((threshold) => ({ id: randomUUID(), threshold, n_images: media.length, n_frames: 0, n_videos: 0, size: media.length }));
    const members = clusters.flatMap((cluster) => media.map((id) => ({ threshold: cluster.threshold, media_id: id, cluster_id: cluster.id })));
    await replaceAnalysis(db, versionId, { clustering: [{ clusters, members }], scores: [], reference: { mean: 0.5, std: 0.1, items: media.length }, mapPoints: [] });
    const own = (await findVersion(db, versionId))!.clustering_id;
    expect(own).not.toBe(shared);
    expect(await rowsOf(own)).toBe(5 + 5 * media.length);
    expect(await rowsOf(shared)).toBe(sharedRows);
    const copyExplore = async (datasetId: string, copyVersionId: string) => {
      await setHeadVersion(db, datasetId, copyVersionId);
      return (await explore(datasetId, { threshold: '4' })).map((c) => c.n_images);
    };
    expect(await copyExplore(first.datasetId, first.versionId)).toEqual(Array(3).fill(100));

    // Dropping the second reader keeps the clustering the first still reads; dropping the first releases it
    // (each dataset drops its empty first version and the copy).
    await db('datasets').whereIn('id', [first.datasetId, second.datasetId]).update({ head_version_id: null });
    expect(await dropUnusedVersions(db, second.datasetId)).toBe(2);
    expect(await rowsOf(shared)).toBe(sharedRows);
    expect(await dropUnusedVersions(db, first.datasetId)).toBe(2);
    expect(await rowsOf(shared)).toBe(0);
    expect(await rowsOf(own)).toBe(5 + 5 * media.length);
  });

  it('keeps versions apart: changing the copy leaves the source as it was', async () => {
    const { db } = stack.deps;
    const copy = (await db('datasets').where({ display_name: 'copy' }).first()).id;
    const [tag] = (await stack.request.get(`/api/v1/dataset/${copy}/tags`).expect(200)).body.tags;
    await stack.request.delete(`/api/v1/dataset/${copy}/tags/${tag.id}`).expect(200);
    expect((await stack.request.get(`/api/v1/dataset/${copy}/tags`).expect(200)).body.tags).toEqual([]);
    expect((await stack.request.get(`/api/v1/dataset/${sourceId}/tags`).expect(200)).body.tags).toMatchObject([{ id: tag.id, name: 'keep', n_media: 1 }]);
  });
});
