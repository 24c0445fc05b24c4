import type { DuplicateGroup, DuplicateMember, DuplicatePair, Tier } from './api';

export const TIERS: readonly Tier[] = ['exact', 'near_identical', 'similar'];
export const TIER_TEXT: Record<Tier, string> = { exact: 'exact', near_identical: 'near-identical', similar: 'similar' };

const rank = (pair: DuplicatePair, mediaId: string, keeperId: string) => [
  // Against the suggested keeper first: that is the comparison the decision rests on.
  mediaId !== keeperId && pair.media_id !== keeperId && pair.duplicate_of !== keeperId ? 1 : 0,
  // Told from this copy's side (the reason reads of media_id against duplicate_of).
  pair.media_id === mediaId ? 0 : 1,
  TIERS.indexOf(pair.tier),
  -pair.similarity,
];

const before = (a: number[], b: number[]) => {
  const differing = a.findIndex((value, index) => value !== b[index]);
  return differing >= 0 && a[differing] < b[differing];
};

/** The pair that says why a copy is in its group, or null when none does at the tiers asked for. */
export function pairOf(group: DuplicateGroup, mediaId: string): DuplicatePair | null {
  const keeperId = group.suggested_keeper.media_id;
  let best: DuplicatePair | null = null;
  for (const pair of group.pairs) {
    if (pair.media_id !== mediaId && pair.duplicate_of !== mediaId) continue;
    if (!best || before(rank(pair, mediaId, keeperId), rank(best, mediaId, keeperId))) best = pair;
  }
  return best;
}

/** Which way the pair's reason reads, from the copy's side: "this copy against chelsea.jpg". */
export function pairSides(pair: DuplicatePair, mediaId: string, members: DuplicateMember[]): string {
  const otherId = pair.media_id === mediaId ? pair.duplicate_of : pair.media_id;
  const other = members.find((member) => member.media_id === otherId)?.file_name ?? 'a copy not shown';
  return pair.media_id === mediaId ? `this copy against ${other}` : `${other} against this copy`;
}

export const fileSize = (bytes: number | null) => (bytes === null ? 'size unknown' : bytes < 1_000_000 ? `${Math.round(bytes / 1000)} kB` : `${(bytes / 1_000_000).toFixed(2)} MB`);
export const resolution = (member: DuplicateMember) => (member.width && member.height ? `${member.width}×${member.height}` : 'resolution unknown');
