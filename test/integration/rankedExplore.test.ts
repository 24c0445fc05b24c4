import { createHash, randomUUID } from 'node:crypto';
import { exploreClusters, type Relevance } from '../../db/repositories/explore';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { startTestApi, type TestApi } from '../support/testStack';
import { emptyReadyVersion } from '../support/versions';
import { refreshExploreCopies } from '../../db/repositories/clusters';
import { vacuumMedia } from '../../db/repositories/plannerStatistics';

/**
 * Ranked Explore pages (caption and semantic searches, visual search) find their clusters from the
 * nearest hits outward instead of counting every match. Checked against pages made here from every
 * row: clusters nearest first by their nearest passing member, ties by their size (biggest first), then by id;
 * with captions shared by many media (ties), a second search weighing in, a distance limit, a filter,
 * and pages past the first.
 */
describe('ranked Explore pages (real Postgres)', () => {
  let api: TestApi;
  let versionId: string;
  let tagId: string;
  interface Item { id: string; cluster: string; caption: number; concept: string; tagged: boolean }
  const items: Item[] = [];
  const clusters = Array.from({ length: 320 }, () => randomUUID());
  const captions = Array.from({ length: 40 }, (_, c) => `caption ${c}`);
  // A caption's key as Postgres makes it (md5(caption)::uuid).
  const captionKeys = captions.map((caption) => createHash('md5').update(caption).digest('hex').replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-'));
  // Captions shared by many media each (a caption model repeats itself): their clusters tie on the nearest distance.
  const captionDistances = captionKeys.map((_, c) => 0.2 + c * 0.01);
  const conceptDistances = new Map<string, number>();

  beforeAll(async () => {
    api = await startTestApi();
    const { db } = api.deps;
    let clusteringId: string;
    ({ versionId, clusteringId } = await emptyReadyVersion(db, 'ranked'));
    for (let i = 0; i < 900; i++) {
      const item = { id: randomUUID(), cluster: clusters[(i * 7919) % 301 % clusters.length], caption: (i * i) % 41, concept: randomUUID(), tagged: i % 3 !== 0 };
      items.push(item);
      // Every fourth image has a concept hit of its own, nearer or farther than its caption.
      if (i % 4 === 0) conceptDistances.set(item.concept, 0.15 + ((i * 13) % 97) * 0.007);
    }
    const batchId = randomUUID();
    await db('media').insert(items.map((item, i) => ({
      version_id: versionId, id: item.id, kind: 'IMAGE', batch_id: batchId, file_name: `m${i}.jpg`, blob_sha256: 'a'.repeat(64),
      caption: captions[item.caption] ?? null, concept_key: item.concept, embedded: true,
    })));
    const used = [...new Set(items.map((item) => item.cluster))];
    await db('clusters').insert(used.map((id) => {
      const size = items.filter((item) => item.cluster === id).length;
      return { clustering_id: clusteringId, id, threshold: 0, n_images: size, n_frames: 0, n_videos: 0, size };
    }));
    await db('cluster_members').insert(items.map((item) => ({ clustering_id: clusteringId, threshold: 0, media_id: item.id, cluster_id: item.cluster })));
    await refreshExploreCopies(db, versionId, clusteringId, 'all');
    [{ id: tagId }] = await db('tags').insert({ version_id: versionId, name: 'picked' }).returning('id');
    await db('media_tags').insert(items.filter((item) => item.tagged).map((item) => ({ version_id: versionId, media_id: item.id, tag_id: tagId })));
  });
  afterAll(() => api.close());

  const captionSearch = { key: 'caption_key' as const, ids: captionKeys, distances: captionDistances, weight: 0.3 };
  const conceptSearch = () => ({ key: 'concept_key' as const, ids: [...conceptDistances.keys()], distances: [...conceptDistances.values()], weight: 0.7 });

  // Every image of the eight nearest captions is far by its concept: the nearest hits are not the nearest images.
  const farConceptSearch = () => {
    const distance = (item: Item, i: number) => (item.caption < 8 ? 0.9 : 0.3 + ((i * 13) % 97) * 0.003);
    return { key: 'concept_key' as const, ids: items.map((item) => item.concept), distances: items.map(distance), weight: 0.7 };
  };

  /** An item's distance as the page computes it: the weighted mean of the distances its searches found it at. */
  function distanceOf(item: Item, relevance: Relevance): number | undefined {
    let sum = 0;
    let weights = 0;
    for (const search of relevance.by) {
      const key =
        search.key === 'id' ? item.id : search.key === 'caption_key' ? (item.caption < captionKeys.length ? captionKeys[item.caption] : undefined) : item.concept;
      const at = key === undefined ? -1 : search.ids.indexOf(key);
      if (at < 0) continue;
      sum += (search.weight ?? 1) * Math.fround(search.distances[at]);
      weights += search.weight ?? 1;
    }
    return weights === 0 ? undefined : sum / weights;
  }

  /** The clusters of page `page` as this test ranks them from every item. */
  function expected(relevance: Relevance, passes: (item: Item) => boolean, page: number) {
    const byCluster = new Map<string, { nearest: number; n: number }>();
    for (const item of items) {
      const distance = distanceOf(item, relevance);
      if (distance === undefined || !passes(item) || (relevance.maxDistance !== undefined && distance >= relevance.maxDistance)) continue;
      const cluster = byCluster.get(item.cluster) ?? { nearest: Infinity, n: 0 };
      byCluster.set(item.cluster, { nearest: Math.min(cluster.nearest, distance), n: cluster.n + 1 });
    }
    const sizeOf = (cluster: string) => items.filter((item) => item.cluster === cluster).length;
    return [...byCluster.entries()]
      .map(([cluster_id, { nearest, n }]) => ({ cluster_id, nearest, n, size: sizeOf(cluster_id) }))
      .sort((a, b) => a.nearest - b.nearest || b.size - a.size || (a.cluster_id < b.cluster_id ? -1 : 1))
      .slice(page * 100, page * 100 + 100);
  }

  async function explored(relevance: Relevance, filters: MediaFilter[], page: number) {
    const found = await exploreClusters(api.deps.db, { versionId, threshold: 0, page, filters, relevance });
    return found.map((cluster) => ({ cluster_id: cluster.cluster_id, nearest: cluster.relevance!, n: cluster.n_images }));
  }

  type Case = [string, () => Relevance, () => MediaFilter[], (item: Item) => boolean];
  it.each<Case>([
    ['one caption search', () => ({ by: [captionSearch] }), () => [], () => true],
    ['a caption and a concept search', () => ({ by: [captionSearch, conceptSearch()] }), () => [], () => true],
    ['two searches under a distance limit', () => ({ by: [captionSearch, conceptSearch()], maxDistance: 0.5 }), () => [], () => true],
    ['a caption search whose nearest images a concept search finds far', () => ({ by: [captionSearch, farConceptSearch()] }), () => [], () => true],
    ['one caption search and a tag filter', () => ({ by: [captionSearch] }), () => [{ kind: 'tags', anyOf: [tagId] }], (item) => item.tagged],
    // A visual search's hits are media: 50 distances among 900 media, so clusters tie across the pages' ends.
    ['a visual search (by media id)', () => ({ by: [{ key: 'id', ids: items.map((item) => item.id), distances: items.map((_, i) => 0.1 + ((i * 17) % 50) * 0.01) }] }), () => [], () => true],
  ])('orders pages 0 to 3 as every match would, for %s', async (_name, relevance, filters, passes) => {
    const pages = [0, 1, 2, 3].map((page) => expected(relevance(), passes, page));
    expect(pages[0].length).toBe(100);
    // Ties on the nearest distance are ordered by size, so some page must show one.
    expect(pages.flat().some((cluster, i, all) => i > 0 && cluster.nearest === all[i - 1].nearest)).toBe(true);
    for (const [page, want] of pages.entries()) {
      const got = await explored(relevance(), filters(), page);
      expect(got.map(({ cluster_id, n }) => ({ cluster_id, n }))).toEqual(want.map(({ cluster_id, n }) => ({ cluster_id, n })));
      got.forEach((cluster, i) => expect(cluster.nearest).toBeCloseTo(want[i].nearest, 5));
    }
  });

  it('reads a page of many members by the hits, and one of few by its clusters\' members, alike', async () => {
    // 120 clusters of 6: page 0 holds 600 members (read by the caption keys), page 1 holds 120 (read by membership).
    const { db } = api.deps;
    const { versionId: version, clusteringId } = await emptyReadyVersion(db, 'ranked big clusters');
    const bigClusters = Array.from({ length: 120 }, () => randomUUID());
    const members = Array.from({ length: 720 }, (_, i) => ({ id: randomUUID(), cluster: bigClusters[i % 120], caption: (i * 7) % 40, uniqueness: (i % 13) / 13 }));
    await db('media').insert(members.map((item, i) => ({
      version_id: version, id: item.id, kind: 'IMAGE', batch_id: randomUUID(), file_name: `b${i}.jpg`, blob_sha256: 'b'.repeat(64),
      caption: captions[item.caption], uniqueness_score: item.uniqueness, embedded: true,
    })));
    await db('clusters').insert(bigClusters.map((id) => ({ clustering_id: clusteringId, id, threshold: 0, n_images: 6, n_frames: 0, n_videos: 0, size: 6 })));
    await db('cluster_members').insert(members.map((item) => ({ clustering_id: clusteringId, threshold: 0, media_id: item.id, cluster_id: item.cluster })));
    await refreshExploreCopies(db, version, clusteringId, 'all');
    // Each cluster by its nearest member, ties by id; its previews nearest first, then most unique.
    const distance = (item: (typeof members)[number]) => Math.fround(captionDistances[item.caption]);
    const want = bigClusters
      .map((cluster) => {
        const inside = members.filter((item) => item.cluster === cluster).sort((a, b) => distance(a) - distance(b) || b.uniqueness - a.uniqueness || (a.id < b.id ? -1 : 1));
        return { cluster_id: cluster, n: inside.length, nearest: distance(inside[0]), previews: inside.map((item) => item.id) };
      })
      .sort((a, b) => a.nearest - b.nearest || (a.cluster_id < b.cluster_id ? -1 : 1));
    for (const page of [0, 1]) {
      const got = await exploreClusters(db, { versionId: version, threshold: 0, page, filters: [], relevance: { by: [captionSearch] } });
      const shown = want.slice(page * 100, page * 100 + 100);
      expect(got.map((cluster) => ({ cluster_id: cluster.cluster_id, n: cluster.n_images }))).toEqual(shown.map(({ cluster_id, n }) => ({ cluster_id, n })));
      got.forEach((cluster, i) => expect(cluster.previews.map((preview) => preview.id)).toEqual(shown[i].previews));
    }
  });

  it('shows nothing when no search found anything', async () => {
    expect(await explored({ by: [{ key: 'caption_key', ids: [], distances: [] }] }, [], 0)).toEqual([]);
  });

  it('reads its hits from the caption key index alone once a task vacuumed the media rows it rewrote', async () => {
    const { db } = api.deps;
    /** The heap rows a read of the version's caption hits as a big page reads them (a loop into the caption key index) still visits: 0 when the index answered alone. */
    const heapFetches = () =>
      db.transaction(async (trx) => {
        await trx.raw('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off');
        const { rows } = await trx.raw(
          `EXPLAIN (ANALYZE, FORMAT JSON) SELECT m.id, m.kind, m.parent_id, m.uniqueness_score, m.repeat_of_frame, m.cluster_ids[1]
           FROM unnest(?::uuid[]) AS hit(key) JOIN media m ON m.version_id = ? AND m.caption_key = hit.key`,
          [captionKeys, versionId],
        );
        const plans = (node: { Plans?: unknown[] }): Array<Record<string, unknown>> => [node, ...(node.Plans ?? []).flatMap((child) => plans(child as { Plans?: unknown[] }))];
        const nodes = plans(rows[0]['QUERY PLAN'][0].Plan);
        expect(nodes.some((node) => node['Node Type'] === 'Index Only Scan' && node['Index Name'] === 'media_version_caption_key')).toBe(true);
        return nodes.reduce((sum, node) => sum + Number(node['Heap Fetches'] ?? 0), 0);
      });
    // This file's own database: autovacuum must not do the work first.
    await db.raw('ALTER TABLE media SET (autovacuum_enabled = false)');
    const before = await explored({ by: [captionSearch] }, [], 0);
    // What an analysis does to every media row: a new uniqueness (the same here).
    await db('media').where({ version_id: versionId }).update({ uniqueness_score: db.raw('uniqueness_score') });
    await db.raw('ANALYZE media');
    expect(await heapFetches()).toBeGreaterThan(0);
    await vacuumMedia(db, 10_000);
    expect(await heapFetches()).toBe(0);
    expect(await explored({ by: [captionSearch] }, [], 0)).toEqual(before);
  });

  it('follows memberships that moved, once the rows of the media that moved are refreshed (as a re-clustering does)', async () => {
    const { db } = api.deps;
    const clusteringId = (await db('dataset_versions').where({ id: versionId }).first('clustering_id')).clustering_id;
    const relevance = () => ({ by: [captionSearch, conceptSearch()] });
    // Items of the nearest captions move into one cluster (a merge); the page changes.
    const moved = items.filter((item) => item.caption < 3).slice(0, 40);
    const into = clusters[300];
    const before = expected(relevance(), () => true, 0);
    for (const item of moved) item.cluster = into;
    await db('cluster_members').where({ clustering_id: clusteringId, threshold: 0 }).whereIn('media_id', moved.map((item) => item.id)).update({ cluster_id: into });
    await db.raw(
      `UPDATE clusters c SET size = s.n, n_images = s.n FROM (SELECT cluster_id, count(*)::int AS n FROM cluster_members WHERE clustering_id = ? GROUP BY cluster_id) s
       WHERE c.clustering_id = ? AND c.id = s.cluster_id`,
      [clusteringId, clusteringId],
    );
    if (!(await db('clusters').where({ clustering_id: clusteringId, id: into }).first('id'))) {
      await db('clusters').insert({ clustering_id: clusteringId, id: into, threshold: 0, n_images: moved.length, n_frames: 0, n_videos: 0, size: moved.length });
    }
    const want = expected(relevance(), () => true, 0);
    expect(want.map((cluster) => cluster.cluster_id)).not.toEqual(before.map((cluster) => cluster.cluster_id));
    await refreshExploreCopies(db, versionId, clusteringId, { clusterIds: [into], mediaIds: [], movedMediaIds: moved.map((item) => item.id) });
    const got = await explored(relevance(), [], 0);
    expect(got.map(({ cluster_id, n }) => ({ cluster_id, n }))).toEqual(want.map(({ cluster_id, n }) => ({ cluster_id, n })));
  });
});
