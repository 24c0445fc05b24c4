import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analysisOf, analyzeInOnePass, previewsRankedFromMembers, mediaClustersOutOfStep } from '../support/analysisResult';
import { createReadyDataset } from '../support/datasets';
import { makeVideo } from '../support/media';
import { writePhotoVariants } from '../support/photoVariants';
import { startTestStack } from '../support/testStack';
import { headVersionId } from '../support/versions';
import { countFacets, facetsCounted, forgetFacetCounts } from '../../db/repositories/clusterFacets';

describe('the analysis as fan-out (neighbour-search chunks, then clustering over the stored graph)', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'fanout-'));
  // Real photos, each as it is, tinted, cropped and blurred (near-duplicates and looser likenesses), and a video's frames.
  const files: string[] = [];

  beforeAll(async () => {
    stack = await startTestStack({ ANALYSIS_CHUNK_SIZE: '7' });
    files.push(...[...(await writePhotoVariants(scratch)).values()].flat());
    const video = path.join(scratch, 'clip.mp4');
    fs.copyFileSync(makeVideo(10), video);
    files.push(video);
  }, 120_000);
  afterAll(async () => {
    await stack.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('stores the graph chunk by chunk and gives exactly the clusters, scores, issues and map of the single-activity analysis', async () => {
    const { db } = stack.deps;
    const datasetId = await createReadyDataset(stack, 'fan-out', files);
    const versionId = await headVersionId(db, datasetId);
    const items = Number((await db('media').where({ version_id: versionId }).whereIn('kind', ['IMAGE', 'VIDEO_FRAME']).count({ n: '*' }))[0].n);
    expect(items).toBeGreaterThan(32);
    expect(Number((await db('knn_edges').where({ version_id: versionId }).count({ n: '*' }))[0].n)).toBe(Math.ceil(items / 7));
    const fannedOut = await analysisOf(db, versionId);
    // Every item's row keeps its clusters, as its memberships say (a ranked page reads them from there).
    const keptClusters = () => db('media').where({ version_id: versionId }).whereNotNull('cluster_ids').count({ n: '*' });
    expect(await mediaClustersOutOfStep(db, versionId)).toEqual([]);
    expect(Number((await keptClusters())[0].n)).toBe(items);

    await analyzeInOnePass(db, stack.deps.vectors, datasetId, stack.deps.store);
    const single = await analysisOf(db, versionId);
    expect(await mediaClustersOutOfStep(db, versionId)).toEqual([]);
    expect(Number((await keptClusters())[0].n)).toBe(items);
    // The analysis counted the facets it changed itself, as a count from scratch gives them.
    const facetCounts = () => db('cluster_facet_counts').where({ version_id: versionId }).orderBy(['threshold', 'facet', 'cluster_id']).select('threshold', 'facet', 'cluster_id', 'n');
    expect(await facetsCounted(db, versionId)).toBe(true);
    const counted = await facetCounts();
    expect(counted.some((row) => row.facet === 'issue:duplicates')).toBe(true);
    await forgetFacetCounts(db, versionId);
    await countFacets(db, versionId);
    expect(await facetCounts()).toEqual(counted);

    expect(fannedOut).toEqual(single);
    // Each cluster keeps its 10 most unique members as previews (a page without filters shows them).
    expect(fannedOut.levels.map((clusters) => clusters.map((cluster) => cluster.previews))).toEqual(previewsRankedFromMembers(fannedOut));
    // The comparison is worth something: variants of a photo share clusters, frames and images are counted apart.
    expect(fannedOut.levels[4].some((cluster) => cluster.n_images > 1)).toBe(true);
    expect(fannedOut.levels[4].some((cluster) => cluster.n_frames > 1 && cluster.n_videos === 1)).toBe(true);
    expect(fannedOut.levels[0].length).toBeGreaterThan(fannedOut.levels[4].length);
    expect(fannedOut.uniqueness).toHaveLength(items);
    expect(fannedOut.mapPoints).toHaveLength(items);
  }, 300_000);
});
