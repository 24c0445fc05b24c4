import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clusteringOf } from '../../db/repositories/clusteringOf';
import { analysisOf, analyzeInOnePass, mediaClustersOutOfStep, previewsRankedFromMembers } from '../support/analysisResult';
import { createReadyDataset, waitForTask } from '../support/datasets';
import { makeVideo, PHOTO_NAMES } from '../support/media';
import { writePhotoVariants } from '../support/photoVariants';
import { startTestStack } from '../support/testStack';
import { headVersionId } from '../support/versions';

describe('the incremental reindex (only the new media searched, the stored graph extended and re-clustered)', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'incremental-'));
  // Per photo: as it is, tinted, cropped and blurred (near-duplicates and looser likenesses).
  let variantsOf: Map<string, string[]>;

  beforeAll(async () => {
    stack = await startTestStack({ ANALYSIS_CHUNK_SIZE: '7' });
    variantsOf = await writePhotoVariants(scratch);
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const filesOf = (names: string[]) => names.flatMap((name) => variantsOf.get(name)!);
  const addMedia = (datasetId: string, files: string[]) => {
    const request = stack.request.post(`/api/v1/dataset/${datasetId}/add_media`);
    for (const file of files) request.attach('files', file);
    return request;
  };

  it('after add_media, a reindex and an auto_reindex give exactly the clusters, scores and issues of a full rebuild of the same media, rewrite only what changed and keep the map\'s points', async () => {
    const { db } = stack.deps;
    const video = path.join(scratch, 'clip.mp4');
    fs.copyFileSync(makeVideo(10), video);
    const datasetId = await createReadyDataset(stack, 'incremental', [...filesOf(PHOTO_NAMES.slice(0, 5)), video]);
    const versionId = await headVersionId(db, datasetId);
    const graph = async () => db('knn_graphs').where({ version_id: versionId }).first('chunks', db.raw('octet_length(item_ids) / 16 AS items'));
    const created = await graph();
    const mapPoints = async () => db('map_points').where({ version_id: versionId }).orderBy('point_index').select('media_id', 'point_index', 'x', 'y');
    const embeddedIds = async () => db('media').where({ version_id: versionId, embedded: true }).whereIn('kind', ['IMAGE', 'VIDEO_FRAME']).pluck('id');
    // Row versions (xmin) and the memberships' too: a kept cluster is neither rewritten nor has a member rewritten.
    const clusterRows = async () =>
      db('clusters as c')
        .where('c.clustering_id', clusteringOf(db, versionId))
        .select('c.id', db.raw('c.xmin::text AS xmin'), db.raw('(SELECT array_agg(cm.xmin::text || cm.media_id::text ORDER BY cm.media_id) FROM cluster_members cm WHERE cm.clustering_id = c.clustering_id AND cm.cluster_id = c.id) AS members'));
    expect(created.chunks).toBe(Math.ceil(created.items / 7));

    // Two photos' variants, then a reindex: their 8 items in 2 chunks, then one chunk of the existing lists they entered.
    await addMedia(datasetId, filesOf(PHOTO_NAMES.slice(5, 7))).expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });
    // The added media's placements chose the previews again where they entered or changed a uniqueness.
    const placed = await analysisOf(db, versionId);
    expect(placed.levels.map((clusters) => clusters.map((cluster) => cluster.previews))).toEqual(previewsRankedFromMembers(placed));
    // And every media row keeps the clusters its memberships say.
    expect(await mediaClustersOutOfStep(db, versionId)).toEqual([]);
    const pointsBefore = await mapPoints();
    const clustersBefore = await clusterRows();
    await stack.request.post(`/api/v1/dataset/${datasetId}/reindex`).expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'REINDEX', status: 'COMPLETED' });
    expect(await graph()).toEqual({ chunks: created.chunks + 2 + 1, items: created.items + 8 });
    expect(await mediaClustersOutOfStep(db, versionId)).toEqual([]);
    // The map keeps every point it had (index and place) and gains the items it lacked; clusters no component changed are not rewritten.
    const pointsAfter = await mapPoints();
    expect(pointsAfter.slice(0, pointsBefore.length)).toEqual(pointsBefore);
    expect(new Set(pointsAfter.map((point) => point.media_id))).toEqual(new Set(await embeddedIds()));
    const clustersAfter = new Map((await clusterRows()).map((row) => [row.id, row]));
    const kept = clustersBefore.filter((row) => clustersAfter.has(row.id));
    expect(kept.length).toBeGreaterThan(0);
    // A cluster kept with other members keeps its id and the rows of the members it kept: only memberships that moved are written.
    const mediaOf = (entry: string) => entry.slice(-36);
    for (const row of kept) {
      const after = clustersAfter.get(row.id);
      if (after.xmin === row.xmin) expect(after).toEqual(row);
      const before = new Set(row.members.map(mediaOf));
      expect(row.members).toEqual(expect.arrayContaining(after.members.filter((entry: string) => before.has(mediaOf(entry)))));
    }
    const changed = await db('knn_edges').where({ version_id: versionId, chunk: created.chunks + 2 }).first(db.raw('octet_length(hits) AS bytes'));
    expect(changed.bytes).toBeGreaterThan(0);

    // One more photo with auto_reindex: the graph extended again, from the extended one.
    await addMedia(datasetId, filesOf(PHOTO_NAMES.slice(7))).field('auto_reindex', 'true').expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });
    expect(await graph()).toEqual({ chunks: created.chunks + 3 + 2, items: created.items + 12 });
    expect(await headVersionId(db, datasetId)).toBe(versionId);
    expect(await mediaClustersOutOfStep(db, versionId)).toEqual([]);
    const { mapPoints: incrementalMap, ...incremental } = await analysisOf(db, versionId);
    expect(new Set(incrementalMap.map((point) => point.media_id))).toEqual(new Set(await embeddedIds()));

    // The full rebuild of the same media: every item searched again (and a new map layout).
    await analyzeInOnePass(db, stack.deps.vectors, datasetId, stack.deps.store);
    const { mapPoints: fullMap, ...full } = await analysisOf(db, versionId);
    // The single-activity analysis was not made from the stored graph: it is forgotten, so no reindex extends it.
    expect(await graph()).toBeUndefined();
    expect(await mediaClustersOutOfStep(db, versionId)).toEqual([]);

    expect(incremental).toEqual(full);
    expect(full.levels.map((clusters) => clusters.map((cluster) => cluster.previews))).toEqual(previewsRankedFromMembers(full));
    expect(fullMap).toHaveLength(incrementalMap.length);
    // The comparison is worth something: an added photo's variants share a cluster, and the lists of existing items changed.
    const names = new Map<string, string>();
    for (const row of await db('media').where({ version_id: versionId }).select('id', 'file_name')) names.set(row.id, row.file_name);
    const photoOf = (id: string) => names.get(id)?.split('_').slice(0, -1).join('_');
    const addedNames = PHOTO_NAMES.slice(5);
    expect(full.levels[4].some((cluster) => addedNames.some((name) => cluster.members.filter((id) => photoOf(id) === name).length > 1))).toBe(true);
    expect(full.uniqueness).toHaveLength(created.items + 12);
  }, 600_000);

  it('a stored graph that does not record what its analysis came from (stored before it was recorded) is re-clustered from everything, to the same result', async () => {
    const { db } = stack.deps;
    const datasetId = await createReadyDataset(stack, 'unrecorded', filesOf(PHOTO_NAMES.slice(0, 4)));
    const versionId = await headVersionId(db, datasetId);
    const recorded = () => db('knn_graphs').where({ version_id: versionId }).first('chunks', 'analysed_chunks', db.raw('octet_length(item_ids) / 16 AS items'), 'analysed_items');
    const created = await recorded();
    expect(created).toEqual({ chunks: created.chunks, analysed_chunks: created.chunks, items: created.items, analysed_items: created.items });
    await db('knn_graphs').where({ version_id: versionId }).update({ analysed_chunks: null, analysed_items: null });

    await addMedia(datasetId, filesOf(PHOTO_NAMES.slice(4, 6))).field('auto_reindex', 'true').expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });
    const extended = await recorded();
    expect(extended).toEqual({ chunks: extended.chunks, analysed_chunks: extended.chunks, items: created.items + 8, analysed_items: created.items + 8 });
    expect(extended.chunks).toBeGreaterThan(created.chunks);
    const { mapPoints: incrementalMap, ...incremental } = await analysisOf(db, versionId);

    await analyzeInOnePass(db, stack.deps.vectors, datasetId, stack.deps.store);
    const { mapPoints: fullMap, ...full } = await analysisOf(db, versionId);
    expect(incremental).toEqual(full);
    expect(fullMap).toHaveLength(incrementalMap.length);
  }, 600_000);
});
