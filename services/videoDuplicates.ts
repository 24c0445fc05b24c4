import type { Db } from '../db/connection';
import { framesPerVideo, sameBytesVideos, videoFramePairs, type VideoFramePairRow } from '../db/repositories/duplicates';
import type { Pair } from '../lib/quality/duplicateGroups';
import { clipReason, matchClips } from '../lib/quality/videoMatch';
import type { PairFilter } from './duplicates';

/**
 * The version's pairs of videos that are one clip, in the tiers asked for: exact (the same bytes), near-identical
 * (enough of their frames the same picture, in order: lib/quality/videoMatch.ts) or similar (the same with
 * frames the embedding alone pairs).
 */
export async function videoPairs(db: Db, versionId: string, filter: PairFilter): Promise<Pair[]> {
  const [framePairs, sameBytes] = await Promise.all([
    filter.tiers.some((tier) => tier !== 'exact') ? videoFramePairs(db, versionId, filter.similarity) : [],
    filter.tiers.includes('exact') ? sameBytesVideos(db, versionId) : [],
  ]);
  const pairs: Pair[] = sameBytes.map(({ videoA, videoB }) => ({ mediaId: videoA, duplicateOf: videoB, similarity: 1, tier: 'exact', reason: 'same bytes' }));
  const exact = new Set(sameBytes.map(({ videoA, videoB }) => `${videoA} ${videoB}`));
  const byVideos = new Map<string, VideoFramePairRow[]>();
  for (const row of framePairs) {
    const key = `${row.videoA} ${row.videoB}`;
    if (exact.has(key)) continue;
    const rows = byVideos.get(key);
    if (rows) rows.push(row);
    else byVideos.set(key, [row]);
  }
  const frames = await framesPerVideo(db, versionId, [...new Set(framePairs.flatMap((row) => [row.videoA, row.videoB]))]);
  for (const [key, rows] of byVideos) {
    const [videoA, videoB] = key.split(' ');
    for (const tier of (['near_identical', 'similar'] as const).filter((wanted) => filter.tiers.includes(wanted))) {
      const match = matchClips(tier === 'similar' ? rows : rows.filter((row) => row.tier !== 'similar'), frames.get(videoA) ?? 0, frames.get(videoB) ?? 0);
      if (match) {
        pairs.push({ mediaId: videoA, duplicateOf: videoB, similarity: match.similarity, tier, reason: clipReason(match) });
        break;
      }
    }
  }
  return pairs;
}
