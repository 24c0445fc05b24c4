import { randomUUID } from 'node:crypto';
import { createDataset } from '../../db/repositories/datasets';
import { exploreClusters } from '../../db/repositories/explore';
import type { MediaFilter } from '../../lib/vql/compileVql';
import { startTestApi, type TestApi } from '../support/testStack';

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
  interface Item { id: string; kind: 'IMAGE' | 'VIDEO_FRAME'; parent: string | null; cluster: string; uniqueness: number; tagged: boolean; blurry: boolean }
  const items: Item[] = [];
  const clusters = Array.from({ length: 5 }, () => randomUUID());

  beforeAll(async () => {
    api = await startTestApi();
    const { db } = api.deps;
    const admin = await db('users').first();
    const workspace = await db('workspaces').first();
    const dataset = await createDataset(db, { name: 'counts', ownerId: admin.id, workspaceId: workspace.id, status: 'READY' });
    versionId = dataset.head_version_id!;
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
      return { version_id: versionId, id, threshold: 0, n_images: members.length - frames.length, n_frames: frames.length, n_videos: new Set(frames.map((f) => f.parent)).size, size: members.length };
    }));
    await db('cluster_members').insert(items.map((item) => ({ version_id: versionId, threshold: 0, media_id: item.id, cluster_id: item.cluster })));
    [{ id: tagId }] = await db('tags').insert({ version_id: versionId, name: 'picked' }).returning('id');
    await db('media_tags').insert(items.filter((item) => item.tagged).map((item) => ({ version_id: versionId, media_id: item.id, tag_id: tagId })));
    await db('media_issues').insert(items.filter((item) => item.blurry).map((item) => ({ version_id: versionId, media_id: item.id, issue_type: 'blur', confidence: 0.9 })));
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

  it.each([
    ['tags (by media id)', (): MediaFilter[] => [{ kind: 'tags', anyOf: [tagId] }], (item: Item) => item.tagged],
    ['an issue (by media id)', (): MediaFilter[] => [{ kind: 'issue', issue: 'blur' }], (item: Item) => item.blurry],
    ['tags and an issue (by media id)', (): MediaFilter[] => [{ kind: 'tags', anyOf: [tagId] }, { kind: 'issue', issue: 'blur' }], (item: Item) => item.tagged && item.blurry],
    ['uniqueness (the media row)', (): MediaFilter[] => [{ kind: 'uniqueness', atLeast: 0.5 }], (item: Item) => item.uniqueness >= 0.5],
    ['tags and uniqueness (mixed)', (): MediaFilter[] => [{ kind: 'tags', anyOf: [tagId] }, { kind: 'uniqueness', atLeast: 0.3 }], (item: Item) => item.tagged && item.uniqueness >= 0.3],
  ])('counts and orders the clusters by the media passing %s', async (_name, filters, passes) => {
    const want = expected(passes);
    expect(want.some((cluster) => cluster.n_frames > 0)).toBe(true);
    expect(await page(filters())).toEqual(want.map((cluster) => ({ ...cluster, previews: Math.min(cluster.previews, 10) })));
  });
});
