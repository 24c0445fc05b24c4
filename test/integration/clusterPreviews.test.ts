import { randomUUID } from 'node:crypto';
import { insertClustering, refreshExploreCopies, updateClusterCounts, writeNeighbourScores } from '../../db/repositories/clusters';
import { seededRandom } from '../../lib/map/seededRandom';
import { analysisOf, mediaClustersOutOfStep, previewsRankedFromMembers } from '../support/analysisResult';
import { startTestApi, type TestApi } from '../support/testStack';
import { emptyReadyVersion } from '../support/versions';

/**
 * A re-clustering refreshes the previews of the clusters it touched from their stored previews and the members that
 * moved or changed uniqueness, ranking every member only where a stored preview itself moved or changed: checked
 * here against previews ranked from all members, over rounds of changes to clusters bigger than a page of previews.
 */
describe('cluster previews after a re-clustering (real Postgres)', () => {
  let api: TestApi;
  afterAll(() => api?.close());

  it('keep the ten most unique members of every cluster, whichever members moved or changed uniqueness', async () => {
    api = await startTestApi();
    const { db } = api.deps;
    const { versionId, clusteringId } = await emptyReadyVersion(db, 'previews');
    const random = seededRandom(26);
    const batchId = randomUUID();
    const items = Array.from({ length: 240 }, (_, i) => ({ id: randomUUID(), uniqueness: Math.round(random() * 1000) / 1000, cluster: [i % 8, i % 3] }));
    const clusterIds = [Array.from({ length: 8 }, () => randomUUID()), Array.from({ length: 3 }, () => randomUUID())];
    await db('media').insert(
      items.map((item, i) => ({ version_id: versionId, id: item.id, kind: 'IMAGE', batch_id: batchId, file_name: `m${i}.jpg`, blob_sha256: 'a'.repeat(64), uniqueness_score: item.uniqueness, embedded: true })),
    );
    const countsOf = (threshold: number, cluster: number) => {
      const size = items.filter((item) => item.cluster[threshold] === cluster).length;
      return { id: clusterIds[threshold][cluster], threshold, n_images: size, n_frames: 0, n_videos: 0, size };
    };
    await db.transaction(async (trx) => {
      const members = items.flatMap((item) => item.cluster.map((cluster, threshold) => ({ threshold, media_id: item.id, cluster_id: clusterIds[threshold][cluster] })));
      await insertClustering(trx, clusteringId, clusterIds.flatMap((ids, threshold) => ids.map((_, cluster) => countsOf(threshold, cluster))), members);
    });
    await refreshExploreCopies(db, versionId, clusteringId, 'all');
    const previewsNow = async () => {
      const analysis = await analysisOf(db, versionId);
      return { stored: analysis.levels.map((clusters) => clusters.map((cluster) => cluster.previews)), ranked: previewsRankedFromMembers(analysis) };
    };
    const first = await previewsNow();
    expect(first.stored).toEqual(first.ranked);

    const previewIds = new Set(first.stored.flat(2));
    const nonPreviews = items.filter((item) => !previewIds.has(item.id));
    const previews = items.filter((item) => previewIds.has(item.id));
    const rounds = [
      // Members below the previews rise above some of them, and one moves in at the top: no stored preview is touched.
      { rescored: nonPreviews.slice(0, 12).map((item) => ({ item, uniqueness: 0.95 + random() * 0.05 })), moved: [{ item: nonPreviews[20], threshold: 0, to: 3, uniqueness: 0.999 }] },
      // Previews fall below members that were never ranked, and others move to another cluster.
      { rescored: previews.slice(0, 6).map((item) => ({ item, uniqueness: random() * 0.01 })), moved: previews.slice(6, 10).map((item) => ({ item, threshold: 1, to: (item.cluster[1] + 1) % 3, uniqueness: item.uniqueness })) },
      // Both at once, with scores that do not change (written again all the same).
      { rescored: [...items.slice(100, 140).map((item) => ({ item, uniqueness: random() })), ...items.slice(140, 150).map((item) => ({ item, uniqueness: item.uniqueness }))], moved: items.slice(150, 160).map((item, k) => ({ item, threshold: k % 2, to: (item.cluster[k % 2] + 1) % (k % 2 ? 3 : 8), uniqueness: item.uniqueness })) },
    ];
    for (const round of rounds) {
      const before = new Map(items.map((item) => [item.id, { cluster: [...item.cluster], uniqueness: Math.fround(item.uniqueness) }]));
      for (const { item, uniqueness } of round.rescored) item.uniqueness = uniqueness;
      for (const { item, threshold, to, uniqueness } of round.moved) {
        item.cluster[threshold] = to;
        item.uniqueness = uniqueness;
      }
      const touched = new Set<string>();
      for (const { item, threshold, to } of round.moved) {
        touched.add(clusterIds[threshold][before.get(item.id)!.cluster[threshold]]);
        touched.add(clusterIds[threshold][to]);
      }
      await db.transaction(async (trx) => {
        const members = round.moved.map(({ item, threshold, to }) => ({ threshold, media_id: item.id, cluster_id: clusterIds[threshold][to] }));
        await insertClustering(trx, clusteringId, [], members);
        await updateClusterCounts(trx, clusteringId, clusterIds.flatMap((ids, threshold) => ids.map((_, cluster) => countsOf(threshold, cluster))).filter((cluster) => touched.has(cluster.id)));
        const scored = [...round.rescored, ...round.moved].map(({ item }) => ({ id: item.id, score: { uniqueness: item.uniqueness, issues: [] } }));
        const rescored = await writeNeighbourScores(trx, versionId, scored);
        // Only the rows whose uniqueness changed are written, and only those are told to the refresh.
        const changedScores = scored.filter(({ id, score }) => Math.fround(score.uniqueness) !== before.get(id)!.uniqueness).map(({ id }) => id);
        expect(changedScores.length).toBeGreaterThan(0);
        expect(rescored.sort()).toEqual([...new Set(changedScores)].sort());
        await refreshExploreCopies(trx, versionId, clusteringId, { clusterIds: touched, mediaIds: rescored, movedMediaIds: members.map((member) => member.media_id) });
      });
      const after = await previewsNow();
      expect(after.stored).toEqual(after.ranked);
      expect(await mediaClustersOutOfStep(db, versionId)).toEqual([]);
    }
  }, 120_000);
});
