import { randomUUID } from 'node:crypto';
import { countFacets, facetsCounted, forgetFacetCounts } from '../../db/repositories/clusterFacets';
import { exploreClusters } from '../../db/repositories/explore';
import { writeNeighbourScores } from '../../db/repositories/clusters';
import { addBatchAnalysis } from '../../services/analysisResults';
import { tagMedia, untagMedia } from '../../db/repositories/tags';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { startTestApi, type TestApi } from '../support/testStack';
import { emptyReadyVersion } from '../support/versions';
import { refreshExploreCopies } from '../../db/repositories/clusters';
import { applyLabel } from '../../db/repositories/labels';
import { replaceLabels } from '../../db/repositories/enrichment';
import { writePairTiers } from '../../db/repositories/duplicates';
import { tierDuplicatePairs } from '../../services/duplicateTiers';
import type { Db } from '../../db/connection';

/**
 * Filtered Explore pages count, per cluster, the images, video frames and videos that pass every
 * filter, and order the clusters by how many pass. Checked against counts made here from the rows
 * themselves, on a version of images and two videos' frames, for filters answered by media id alone
 * (issues, tags) and for filters that read the media row (uniqueness), alone and mixed.
 */
describe('filtered Explore counts (real Postgres)', () => {
  let api: TestApi;
  let versionId: string;
  let tagId: string;
  interface Item { id: string; kind: 'IMAGE' | 'VIDEO_FRAME'; parent: string | null; cluster: string; uniqueness: number; tagged: boolean; blurry: boolean; cat: boolean }
  const items: Item[] = [];
  const clusters = Array.from({ length: 5 }, () => randomUUID());

  beforeAll(async () => {
    api = await startTestApi();
    const { db } = api.deps;
    let clusteringId: string;
    ({ versionId, clusteringId } = await emptyReadyVersion(db, 'counts'));
    const batchId = randomUUID();
    const videos = [randomUUID(), randomUUID()];
    // Uneven clusters (i * i % 5), so the order by matching members differs from filter to filter.
    for (let i = 0; i < 40; i++) {
      const frame = i >= 28;
      items.push({
        id: randomUUID(),
        kind: frame ? 'VIDEO_FRAME' : 'IMAGE',
        parent: frame ? videos[i % 2] : null,
        cluster: clusters[(i * i) % 5],
        uniqueness: (i * 37 % 100) / 100,
        tagged: i % 3 === 0,
        blurry: i % 4 === 1,
        cat: i % 3 === 1,
      });
    }
    const row = (id: string, kind: string, fileName: string, extra: object) => ({
      version_id: versionId, id, kind, batch_id: batchId, file_name: fileName, blob_sha256: 'a'.repeat(64), ...extra,
    });
    await db('media').insert(videos.map((id, v) => row(id, 'VIDEO', `clip${v}.mp4`, {})));
    await db('media').insert(items.map((item, i) =>
      row(item.id, item.kind, `m${i}.jpg`, { parent_id: item.parent, frame_index: item.parent ? i : null, uniqueness_score: item.uniqueness, embedded: true })));
    await db('clusters').insert(clusters.map((id) => {
      const members = items.filter((item) => item.cluster === id);
      const frames = members.filter((item) => item.kind === 'VIDEO_FRAME');
      return { clustering_id: clusteringId, id, threshold: 0, n_images: members.length - frames.length, n_frames: frames.length, n_videos: new Set(frames.map((f) => f.parent)).size, size: members.length };
    }));
    await db('cluster_members').insert(items.map((item) => ({ clustering_id: clusteringId, threshold: 0, media_id: item.id, cluster_id: item.cluster })));
    await refreshExploreCopies(db, versionId, clusteringId, 'all');
    [{ id: tagId }] = await db('tags').insert({ version_id: versionId, name: 'picked' }).returning('id');
    await db('media_tags').insert(items.filter((item) => item.tagged).map((item) => ({ version_id: versionId, media_id: item.id, tag_id: tagId })));
    await db('media_issues').insert(items.filter((item) => item.blurry).map((item) => ({ version_id: versionId, media_id: item.id, issue_type: 'blur', confidence: 0.9 })));
    await db('media_labels').insert(items.filter((item) => item.cat).map((item) => ({ version_id: versionId, media_id: item.id, label: 'cat', source: 'model', confidence: 0.8 })));
  });
  afterAll(() => api.close());

  /** The page as this test counts it: clusters with a passing member, most passing first (ties by id). */
  function expected(passes: (item: Item) => boolean) {
    return clusters
      .map((id) => {
        const passing = items.filter((item) => item.cluster === id && passes(item));
        const frames = passing.filter((item) => item.kind === 'VIDEO_FRAME');
        return { cluster_id: id, n_images: passing.length - frames.length, n_frames: frames.length, n_videos: new Set(frames.map((f) => f.parent)).size, previews: passing.length };
      })
      .filter((cluster) => cluster.previews > 0)
      .sort((a, b) => b.previews - a.previews || (a.cluster_id < b.cluster_id ? -1 : 1));
  }

  async function page(filters: MediaFilter[]) {
    const found = await exploreClusters(api.deps.db, { versionId, threshold: 0, page: 0, filters });
    return found.map(({ cluster_id, n_images, n_frames, n_videos, previews }) => ({ cluster_id, n_images, n_frames, n_videos, previews: previews.length }));
  }

  it('shows, without filters, the 10 most unique members of each cluster, most unique first', async () => {
    const found = await exploreClusters(api.deps.db, { versionId, threshold: 0, page: 0, filters: [] });
    const mostUnique = (cluster: string) =>
      items
        .filter((item) => item.cluster === cluster)
        .sort((a, b) => b.uniqueness - a.uniqueness)
        .slice(0, 10)
        .map((item) => item.id);
    expect(found.map((cluster) => cluster.previews.map((preview) => preview.id))).toEqual(found.map((cluster) => mostUnique(cluster.cluster_id)));
    // The comparison is worth something: a cluster has more members than previews.
    expect(found.some((cluster) => cluster.n_images + cluster.n_frames > 10)).toBe(true);
  });

  type Case = [string, () => MediaFilter[], (item: Item) => boolean];
  const SINGLE_FACETS: Case[] = [
    ['tags (by media id)', (): MediaFilter[] => [{ kind: 'tags', anyOf: [tagId] }], (item: Item) => item.tagged],
    ['an issue (by media id)', (): MediaFilter[] => [{ kind: 'issue', issue: 'blur' }], (item: Item) => item.blurry],
    ['a label (by media id)', (): MediaFilter[] => [{ kind: 'labels', anyOf: ['cat'] }], (item: Item) => item.cat],
  ];

  it.each<Case>([
    ...SINGLE_FACETS,
    ['tags and an issue (by media id)', (): MediaFilter[] => [{ kind: 'tags', anyOf: [tagId] }, { kind: 'issue', issue: 'blur' }], (item: Item) => item.tagged && item.blurry],
    ['uniqueness (the media row)', (): MediaFilter[] => [{ kind: 'uniqueness', atLeast: 0.5 }], (item: Item) => item.uniqueness >= 0.5],
    ['tags and uniqueness (mixed)', (): MediaFilter[] => [{ kind: 'tags', anyOf: [tagId] }, { kind: 'uniqueness', atLeast: 0.3 }], (item: Item) => item.tagged && item.uniqueness >= 0.3],
  ])('counts and orders the clusters by the media passing %s', async (_name, filters, passes) => {
    const want = expected(passes);
    expect(want.some((cluster) => cluster.n_frames > 0)).toBe(true);
    expect(await page(filters())).toEqual(want.map((cluster) => ({ ...cluster, previews: Math.min(cluster.previews, 10) })));
  });

  describe('with the per-cluster counts of issue types, labels and tags stored', () => {
    const facetRows = async () =>
      (await api.deps.db('cluster_facet_counts').where({ version_id: versionId }).orderBy(['facet', 'cluster_id']).select('threshold', 'facet', 'cluster_id', 'n', 'n_images', 'n_frames', 'n_videos', 'previews'))
        .map((row) => ({ ...row }));
    const recounted = async () => {
      await forgetFacetCounts(api.deps.db, versionId);
      await countFacets(api.deps.db, versionId);
      return facetRows();
    };
    const want = (facet: string, passes: (item: Item) => boolean) =>
      expected(passes).map((cluster) => ({ threshold: 0, facet, cluster_id: cluster.cluster_id, n: cluster.previews }));
    const counts = (rows: Array<{ threshold: number; facet: string; cluster_id: string; n: number }>) =>
      rows.map(({ threshold, facet, cluster_id, n }) => ({ threshold, facet, cluster_id, n }));
    const fullPage = (filters: MediaFilter[]) => exploreClusters(api.deps.db, { versionId, threshold: 0, page: 0, filters });

    beforeAll(async () => {
      await countFacets(api.deps.db, versionId);
    });

    it('counts each facet per cluster', async () => {
      expect(await facetsCounted(api.deps.db, versionId)).toBe(true);
      const rows = await facetRows();
      const sorted = (list: Array<{ cluster_id: string }>) => [...list].sort((a, b) => (a.cluster_id < b.cluster_id ? -1 : 1));
      expect(counts(rows.filter((row) => row.facet === 'issue:blur'))).toEqual(sorted(want('issue:blur', (item) => item.blurry)));
      expect(counts(rows.filter((row) => row.facet === 'label:cat'))).toEqual(sorted(want('label:cat', (item) => item.cat)));
      expect(counts(rows.filter((row) => row.facet === `tag:${tagId}`))).toEqual(sorted(want(`tag:${tagId}`, (item) => item.tagged)));
    });

    it.each(SINGLE_FACETS)('orders the clusters by %s from the counts, with the same page', async (_name, filters, passes) => {
      expect(await page(filters())).toEqual(expected(passes).map((cluster) => ({ ...cluster, previews: Math.min(cluster.previews, 10) })));
    });

    it.each(SINGLE_FACETS)('shows, filtered by %s, the figures and previews of the page counted from the rows', async (_name, filters) => {
      const fromCounts = await fullPage(filters());
      await forgetFacetCounts(api.deps.db, versionId);
      const fromRows = await fullPage(filters());
      await countFacets(api.deps.db, versionId);
      expect(fromCounts).toEqual(fromRows);
      // The comparison is worth something: previews in an order (most unique first), and videos counted.
      expect(fromRows.some((cluster) => cluster.previews.length > 2)).toBe(true);
      expect(fromRows.some((cluster) => cluster.n_videos > 0)).toBe(true);
    });

    it('keeps the figures and previews of every facet', async () => {
      const rows = await facetRows();
      expect([...new Set(rows.map((row) => row.facet))].sort()).toEqual(['issue:blur', 'label:cat', `tag:${tagId}`]);
      expect(rows.every((row) => row.previews !== null && row.n_images !== null)).toBe(true);
    });

    it('reads the order, the figures and the previews from the counts (changed by hand, the page shows them)', async () => {
      const last = expected((item) => item.blurry).at(-1)!;
      const [stranger] = items.filter((item) => item.cluster !== last.cluster_id);
      await api.deps.db('cluster_facet_counts')
        .where({ version_id: versionId, facet: 'issue:blur', cluster_id: last.cluster_id })
        .update({ n: 1000, n_images: 999, n_videos: 7, previews: [stranger.id] });
      const [first] = await fullPage([{ kind: 'issue', issue: 'blur' }]);
      expect({ cluster_id: first.cluster_id, n_images: first.n_images, n_videos: first.n_videos, previews: first.previews.map((p) => p.id) })
        .toEqual({ cluster_id: last.cluster_id, n_images: 999, n_videos: 7, previews: [stranger.id] });
      await recounted();
      expect((await page([{ kind: 'issue', issue: 'blur' }]))[0].cluster_id).toBe(expected((item) => item.blurry)[0].cluster_id);
    });

    it('keeps the tag counts equal to a recount through tagging and untagging, and a page counts the clusters they touched again', async () => {
      const datasetId = (await api.deps.db('dataset_versions').where({ id: versionId }).first('dataset_id')).dataset_id;
      const untagged = items.filter((item) => !item.tagged).slice(0, 7).map((item) => item.id);
      expect(await tagMedia(api.deps.db, datasetId, tagId, { mediaIds: [...untagged, items[0].id] })).toBe(7);
      const removed = items.filter((item) => item.tagged).slice(0, 4).map((item) => item.id);
      expect(await untagMedia(api.deps.db, datasetId, tagId, { mediaIds: removed })).toBe(4);
      expect(await facetsCounted(api.deps.db, versionId)).toBe(true);
      const touched = new Set(items.filter((item) => untagged.includes(item.id) || removed.includes(item.id)).map((item) => item.cluster));
      const kept = (await facetRows()).filter((row) => row.facet === `tag:${tagId}`);
      // The writes dropped the figures of the clusters they touched, and only theirs.
      expect(kept.filter((row) => row.previews === null).map((row) => row.cluster_id).sort()).toEqual([...touched].sort());
      for (const item of items) item.tagged = (item.tagged && !removed.includes(item.id)) || untagged.includes(item.id);
      const pageOfTagged = expected((item) => item.tagged).map((cluster) => ({ ...cluster, previews: Math.min(cluster.previews, 10) }));
      const fromCounts = await fullPage([{ kind: 'tags', anyOf: [tagId] }]);
      const filled = await facetRows();
      const fromRecount = await recounted();
      expect(filled).toEqual(fromRecount);
      expect(await fullPage([{ kind: 'tags', anyOf: [tagId] }])).toEqual(fromCounts);
      expect(await page([{ kind: 'tags', anyOf: [tagId] }])).toEqual(pageOfTagged);
    });

    it('counts a tag\'s cluster that a write holds from its members, and leaves storing it to a later page', async () => {
      const datasetId = (await api.deps.db('dataset_versions').where({ id: versionId }).first('dataset_id')).dataset_id;
      const [added] = items.filter((item) => !item.tagged);
      expect(await tagMedia(api.deps.db, datasetId, tagId, { mediaIds: [added.id] })).toBe(1);
      added.tagged = true;
      const pageOfTagged = expected((item) => item.tagged).map((cluster) => ({ ...cluster, previews: Math.min(cluster.previews, 10) }));
      const row = { version_id: versionId, threshold: 0, facet: `tag:${tagId}`, cluster_id: added.cluster };
      const held = await api.deps.db.transaction();
      try {
          await held('cluster_facet_counts').where(row).forUpdate().first();
          expect(await page([{ kind: 'tags', anyOf: [tagId] }])).toEqual(pageOfTagged);
          expect((await api.deps.db('cluster_facet_counts').where(row).first('previews')).previews).toBeNull();
      } finally {
        await held.commit();
      }
      expect(await page([{ kind: 'tags', anyOf: [tagId] }])).toEqual(pageOfTagged);
      expect((await api.deps.db('cluster_facet_counts').where(row).first('previews')).previews).not.toBeNull();
    });

    it('forgets the counts when issues are written, and the page is counted from the rows meanwhile', async () => {
      const outliers = items.filter((item) => item.tagged).slice(0, 6);
      await api.deps.db.transaction((trx) =>
        writeNeighbourScores(trx, versionId, outliers.map((item) => ({ id: item.id, score: { uniqueness: item.uniqueness, issues: [{ type: 'outliers' as const, confidence: 0.6 }] } }))));
      expect(await facetsCounted(api.deps.db, versionId)).toBe(false);
      const outlierIds = new Set(outliers.map((item) => item.id));
      const pageOfOutliers = expected((item) => outlierIds.has(item.id)).map((cluster) => ({ ...cluster, previews: Math.min(cluster.previews, 10) }));
      expect(await page([{ kind: 'issue', issue: 'outliers' }])).toEqual(pageOfOutliers);
      await countFacets(api.deps.db, versionId);
      expect(await facetsCounted(api.deps.db, versionId)).toBe(true);
      expect(await page([{ kind: 'issue', issue: 'outliers' }])).toEqual(pageOfOutliers);
    });

    it.each<[string, (trx: Db, ids: string[]) => Promise<void>]>([
      ['propagated', (trx, ids) => applyLabel(trx, versionId, 'cat', 'propagated', ids.map((mediaId) => ({ mediaId, confidence: 0.7 })))],
      ['given by a model', (trx, ids) => replaceLabels(trx, versionId, 'model', ids, ids.map((mediaId) => ({ mediaId, label: 'cat', confidence: 0.6 })))],
    ])('forgets the counts when labels are %s, and the label page follows the rows, counted or not', async (_name, write) => {
      const added = items.filter((item) => !item.cat).slice(0, 5);
      // An issue count changed by hand stays as it is: the label write forgets the labels' counts alone, and they alone are counted again.
      const blurRow = { version_id: versionId, threshold: 0, facet: 'issue:blur', cluster_id: expected((item) => item.blurry)[0].cluster_id };
      await api.deps.db('cluster_facet_counts').where(blurRow).update({ n_images: 999 });
      await api.deps.db.transaction((trx) => write(trx, added.map((item) => item.id)));
      for (const item of added) item.cat = true;
      expect(await facetsCounted(api.deps.db, versionId)).toBe(false);
      expect(await facetsCounted(api.deps.db, versionId, ['issue', 'tag'])).toBe(true);
      const pageOfCats = expected((item) => item.cat).map((cluster) => ({ ...cluster, previews: Math.min(cluster.previews, 10) }));
      expect(await page([{ kind: 'labels', anyOf: ['cat'] }])).toEqual(pageOfCats);
      await countFacets(api.deps.db, versionId);
      expect(await facetsCounted(api.deps.db, versionId)).toBe(true);
      expect(await page([{ kind: 'labels', anyOf: ['cat'] }])).toEqual(pageOfCats);
      expect((await api.deps.db('cluster_facet_counts').where(blurRow).first('n_images')).n_images).toBe(999);
      await recounted();
    });

    it('keeps the counts through a batch added: the clusters it touches are counted again, as a recount of the version counts them', async () => {
      const { db } = api.deps;
      await countFacets(db, versionId);
      const before = await facetRows();
      const fresh = randomUUID();
      const added = Array.from({ length: 4 }, (_, i) => ({ id: randomUUID(), cluster: i < 2 ? clusters[1] : fresh, uniqueness: 0.95 - i / 100 }));
      await db('media').insert(added.map((item, i) => ({
        version_id: versionId, id: item.id, kind: 'IMAGE', batch_id: randomUUID(), file_name: `added${i}.jpg`, blob_sha256: 'b'.repeat(64), embedded: true,
      })));
      // Issues and labels of the new media, written before they are placed (as ingestion does).
      await db('media_issues').insert(added.slice(1).map((item) => ({ version_id: versionId, media_id: item.id, issue_type: 'blur', confidence: 0.9 })));
      await db('media_labels').insert(added.slice(0, 3).map((item) => ({ version_id: versionId, media_id: item.id, label: 'cat', source: 'model', confidence: 0.8 })));
      await addBatchAnalysis(db, versionId, {
        clusters: [{ id: fresh, threshold: 0, n_images: 0, n_frames: 0, n_videos: 0, size: 0 }],
        members: added.map((item) => ({ threshold: 0, media_id: item.id, cluster_id: item.cluster })),
        scores: added.map((item, i) => ({ id: item.id, score: { uniqueness: item.uniqueness, issues: i === 0 ? [{ type: 'outliers' as const, confidence: 0.6 }] : [] } })),
        mapPoints: [],
      });
      expect(await facetsCounted(db, versionId)).toBe(true);
      const kept = await facetRows();
      // The batch changed the counts of the clusters it touched, previews included: the most unique come first.
      expect(kept).not.toEqual(before);
      expect(kept.find((row) => row.facet === 'label:cat' && row.cluster_id === clusters[1])?.previews?.[0]).toBe(added[0].id);
      expect(kept).toEqual(await recounted());
      // The clusters it touched keep their members' uniqueness scores, the new members' included (for uniqueness pages).
      for (const cluster of [clusters[1], fresh]) {
        const scores = await db('cluster_members as cm')
          .join('media as m', (join) => join.onVal('m.version_id', versionId).andOn('m.id', 'cm.media_id'))
          .where('cm.cluster_id', cluster)
          .whereNotNull('m.uniqueness_score')
          .pluck('m.uniqueness_score');
        const kept = await db('clusters').where({ id: cluster }).first('negated_uniqueness');
        expect(kept.negated_uniqueness).toEqual(scores.map((score: number) => -score).sort((a: number, b: number) => a - b));
      }
    });

    it.each(['recount', 'forget'] as const)('%s: duplicate tiers move pairs between issue types, and the counts follow or are forgotten', async (counts) => {
      const { db } = api.deps;
      // Untiered duplicate pairs, as an analysis writes them: two become similar, one stays a duplicate.
      const [a, b, c, d] = items.filter((item) => !item.blurry).slice(counts === 'recount' ? 0 : 4);
      await db('media_issues').insert([a, b, c].map((item) => ({ version_id: versionId, media_id: item.id, issue_type: 'duplicates', confidence: 0.9, details: { duplicate_of: d.id } })));
      await forgetFacetCounts(db, versionId, ['issue']);
      await countFacets(db, versionId);
      const edge = (item: Item, tier: 'similar' | 'near_identical') => ({ mediaId: item.id, pairs: [{ mediaId: item.id, duplicateOf: d.id, similarity: 0.9, tier, reason: 'test' }] });
      await writePairTiers(db, versionId, [edge(a, 'similar'), edge(b, 'similar'), edge(c, 'near_identical')], counts);
      const pairIssues = () => db('media_issues').where({ version_id: versionId }).whereIn('media_id', [a.id, b.id, c.id]).whereIn('issue_type', ['duplicates', 'similar']);
      expect(await pairIssues().orderBy('issue_type').pluck('issue_type')).toEqual(['duplicates', 'similar', 'similar']);
      expect(await facetsCounted(db, versionId, ['issue'])).toBe(counts === 'recount');
      const kept = await facetRows();
      const now = await recounted();
      if (counts === 'recount') expect(kept).toEqual(now);
      expect(now.filter((row) => row.facet === 'issue:similar').reduce((sum, row) => sum + row.n, 0)).toBe(2);
      await pairIssues().delete();
    });

    it.each([
      ['an added batch of two rounds keeps the counts, and leaves the clusters it did not touch as they were', 250, false],
      ['more than five rounds forget the counts and count the whole version at the end', 1050, true],
    ] as const)('duplicate tiers: %s', async (_name, added, wholeCount) => {
      const { db, store } = api.deps;
      await countFacets(db, versionId);
      const clusteringId = (await db('dataset_versions').where({ id: versionId }).first('clustering_id')).clustering_id;
      // New images with untiered pairs (no thumbnails, so no pixel check: each pair becomes similar), in the first two clusters.
      const ids = Array.from({ length: added }, () => randomUUID());
      const rows = ids.map((id, i) => ({ id, cluster: clusters[i % 2] }));
      await db.batchInsert('media', rows.map(({ id }, i) => ({ version_id: versionId, id, kind: 'IMAGE', batch_id: randomUUID(), file_name: `pair${i}.jpg`, blob_sha256: 'c'.repeat(64), embedded: true })), 500);
      await db.batchInsert('cluster_members', rows.map(({ id, cluster }) => ({ clustering_id: clusteringId, threshold: 0, media_id: id, cluster_id: cluster })), 500);
      await db.batchInsert('media_issues', ids.map((id) => ({ version_id: versionId, media_id: id, issue_type: 'duplicates', confidence: 0.9, details: { duplicate_of: items[0].id, similarity: 0.91 } })), 500);
      try {
        await forgetFacetCounts(db, versionId, ['issue']);
        await countFacets(db, versionId);
        const untouched = () => db('cluster_facet_counts').where({ version_id: versionId, facet: 'issue:blur' }).whereIn('cluster_id', clusters.slice(2)).orderBy('cluster_id').select('cluster_id', db.raw('xmin::text AS written'));
        const before = await untouched();
        expect(before.length).toBeGreaterThan(0);

        expect(await tierDuplicatePairs({ db, store }, versionId)).toBe(added);
        expect(await facetsCounted(db, versionId)).toBe(true);
        // A whole count writes every count again; recounting the batch's clusters leaves the others' rows alone.
        expect((await untouched()).map((row) => row.written).every((written, i) => written === before[i].written)).toBe(!wholeCount);
        const kept = await facetRows();
        expect(kept).toEqual(await recounted());
        expect(kept.filter((row) => row.facet === 'issue:similar').reduce((sum, row) => sum + row.n, 0)).toBe(added);
      } finally {
        await db('media').where({ version_id: versionId }).whereIn('id', ids).delete();
        await recounted();
      }
    });
  });
});
