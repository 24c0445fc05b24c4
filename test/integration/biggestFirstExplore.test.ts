import { randomUUID } from 'node:crypto';
import { exploreClusters } from '../../db/repositories/explore';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { startTestApi, type TestApi } from '../support/testStack';
import { emptyReadyVersion } from '../support/versions';
import { refreshExploreCopies } from '../../db/repositories/clusters';

/**
 * Filtered Explore pages read clusters biggest first and stop once no later cluster can be on the page;
 * when that would read too much they count every match. Either way the page must be the one counted
 * from every row: clusters by how many members pass (ties by id). A version of 8,000 images in clusters
 * of 40, 10 and 1, with filters dense (most images pass), middling, sparse and tied, on pages 0 to 2.
 */
describe('filtered Explore pages read biggest first (real Postgres)', () => {
  let api: TestApi;
  let versionId: string;
  interface Item { id: string; cluster: string; uniqueness: number; cat: boolean; dog: boolean }
  const items: Item[] = [];
  let clusteringId: string;

  beforeAll(async () => {
    api = await startTestApi();
    const { db } = api.deps;
    ({ versionId, clusteringId } = await emptyReadyVersion(db, 'walk'));
    // 25 clusters of 40 with the last ids, 600 of 10 in the order made, 1,000 single images: 8,000 images.
    const clusters = [
      ...Array.from({ length: 25 }, () => ({ id: `ffff${randomUUID().slice(4)}`, size: 40 })),
      ...Array.from({ length: 600 }, (_, c) => ({ id: `${c.toString(16).padStart(8, '0')}${randomUUID().slice(8)}`, size: 10 })),
      ...Array.from({ length: 1000 }, () => ({ id: randomUUID(), size: 1 })),
    ];
    for (const [c, cluster] of clusters.entries()) {
      for (let j = 0; j < cluster.size; j++) {
        const i = items.length;
        // A dog: 10 members of each cluster of 40, every member of one cluster of 10 in 5, half of the others.
        // Page 0's walk reads the clusters of 40 and then 450 of 10 (as many as the first read says it needs):
        // 90 clusters of 10 dogs and 10 of the clusters of 40 fill it, and the next cluster of 10 may still
        // enter (it ties at 10 and comes first by id), so the walk must not stop there.
        const dog = cluster.size === 40 ? j < 10 : cluster.size === 10 && (c % 5 === 0 || j < 5);
        items.push({ id: randomUUID(), cluster: cluster.id, uniqueness: ((i * 37) % 100) / 100, cat: i % 150 === 7, dog });
      }
    }
    const batchId = randomUUID();
    for (let start = 0; start < items.length; start += 1000) {
      await db('media').insert(items.slice(start, start + 1000).map((item, i) => ({
        version_id: versionId, id: item.id, kind: 'IMAGE', batch_id: batchId, file_name: `m${start + i}.jpg`, blob_sha256: 'a'.repeat(64), uniqueness_score: item.uniqueness, embedded: true,
      })));
      await db('cluster_members').insert(items.slice(start, start + 1000).map((item) => ({ clustering_id: clusteringId, threshold: 0, media_id: item.id, cluster_id: item.cluster })));
    }
    await db('clusters').insert(clusters.map(({ id, size }) => ({ clustering_id: clusteringId, id, threshold: 0, n_images: size, n_frames: 0, n_videos: 0, size })));
    await refreshExploreCopies(db, versionId, clusteringId, 'all');
    const labels = items.flatMap((item) => [...(item.cat ? ['cat'] : []), ...(item.dog ? ['dog'] : [])].map((label) => ({ version_id: versionId, media_id: item.id, label, source: 'model', confidence: 0.8 })));
    for (let start = 0; start < labels.length; start += 1000) await db('media_labels').insert(labels.slice(start, start + 1000));
    // Fresh planner statistics, as every task's end leaves them (commitTaskEnd).
    await db.raw('ANALYZE');
  });
  afterAll(() => api.close());

  function expected(passes: (item: Item) => boolean, page: number) {
    const counts = new Map<string, number>();
    for (const item of items) if (passes(item)) counts.set(item.cluster, (counts.get(item.cluster) ?? 0) + 1);
    return [...counts.entries()]
      .map(([cluster_id, n]) => ({ cluster_id, n }))
      .sort((a, b) => b.n - a.n || (a.cluster_id < b.cluster_id ? -1 : 1))
      .slice(page * 100, page * 100 + 100);
  }

  type Case = [string, MediaFilter[], (item: Item) => boolean];
  it.each<Case>([
    ['uniqueness ≥ 0.05 (dense)', [{ kind: 'uniqueness', atLeast: 0.05 }], (item) => item.uniqueness >= 0.05],
    ['uniqueness ≥ 0.6 (middling)', [{ kind: 'uniqueness', atLeast: 0.6 }], (item) => item.uniqueness >= 0.6],
    ['uniqueness ≥ 0.99 (sparse)', [{ kind: 'uniqueness', atLeast: 0.99 }], (item) => item.uniqueness >= 0.99],
    ['a label (sparse, by media id)', [{ kind: 'labels', anyOf: ['cat'] }], (item) => item.cat],
    ['a label whose last clusters tie (by media id)', [{ kind: 'labels', anyOf: ['dog'] }], (item) => item.dog],
  ])('pages 0 to 2 filtered by %s are the pages counted from every row', async (_name, filters, passes) => {
    for (const page of [0, 1, 2]) {
      const want = expected(passes, page);
      const got = await exploreClusters(api.deps.db, { versionId, threshold: 0, page, filters });
      expect(got.map((cluster) => ({ cluster_id: cluster.cluster_id, n: cluster.n_images }))).toEqual(want);
    }
  });

  it('reads a uniqueness page from the scores each cluster keeps, and counts the rows while one keeps none', async () => {
    const { db } = api.deps;
    const filters: MediaFilter[] = [{ kind: 'uniqueness', atLeast: 0.6 }];
    const passes = (item: Item) => item.uniqueness >= 0.6;
    const explored = async () =>
      (await exploreClusters(db, { versionId, threshold: 0, page: 0, filters })).map((cluster) => ({ cluster_id: cluster.cluster_id, n: cluster.n_images }));
    const [first] = expected(passes, 0);
    // Scores changed by hand: the page follows them (its first cluster says none of its members pass).
    await db('clusters').where({ clustering_id: clusteringId, id: first.cluster_id }).update({ negated_uniqueness: [] });
    expect((await explored()).map((cluster) => cluster.cluster_id)).not.toContain(first.cluster_id);
    await db('clusters').where({ clustering_id: clusteringId, id: first.cluster_id }).update({ negated_uniqueness: null });
    expect(await explored()).toEqual(expected(passes, 0));
    await refreshExploreCopies(db, versionId, clusteringId, 'all');
    const kept = await db('clusters').where({ clustering_id: clusteringId, id: first.cluster_id }).first('negated_uniqueness');
    const members = items.filter((item) => item.cluster === first.cluster_id).map((item) => -item.uniqueness).sort((a, b) => a - b);
    expect(kept.negated_uniqueness).toEqual(members);
    expect(await explored()).toEqual(expected(passes, 0));
  });
});
