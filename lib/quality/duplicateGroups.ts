/**
 * Duplicate review: groups of near-duplicate images and their decisions (the copy to keep: duplicateKeeper.ts).
 * Pure: the service brings the pairs and the decisions.
 */
import type { DuplicateTier } from './pixelMatch';

export interface Pair {
  mediaId: string;
  duplicateOf: string;
  similarity: number;
  tier: DuplicateTier;
  /** Why the pair is in its tier ("same bytes", "same picture at 60 % size", "similar content, 0.94"). */
  reason: string;
}

export interface Decided {
  mediaId: string;
  decisionId: string;
  role: 'keep' | 'discard' | 'distinct';
}

/**
 * open: nothing decided; decided: one decision covers every member; changed: part of the group was
 * decided and something joined it since (a new copy, or a merge of decided groups).
 */
export type GroupState = 'open' | 'decided' | 'changed';

export interface Group {
  /** The decision's id when one decision covers the group, else its smallest media id. */
  id: string;
  state: GroupState;
  memberIds: string[];
  /** The highest pair similarity inside the group. */
  similarity: number;
  /** The pairs that joined its members, each with its tier and reason. */
  pairs: Pair[];
}

/**
 * Groups of images joined by a pair at or above the similarity asked for, or by one decision (a
 * decided group stays whole at any similarity). Groups of one are not groups.
 */
export function groupDuplicates(pairs: Pair[], decisions: Decided[]): Group[] {
  const parent = new Map<string, string>();
  const find = (id: string): string => {
    let root = id;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    for (let node = id; node !== root; ) {
      const next = parent.get(node)!;
      parent.set(node, root);
      node = next;
    }
    return root;
  };
  const join = (a: string, b: string) => {
    if (!parent.has(a)) parent.set(a, a);
    if (!parent.has(b)) parent.set(b, b);
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  };
  for (const pair of pairs) join(pair.mediaId, pair.duplicateOf);
  const firstOfDecision = new Map<string, string>();
  for (const decided of decisions) {
    const first = firstOfDecision.get(decided.decisionId);
    if (first === undefined) firstOfDecision.set(decided.decisionId, decided.mediaId);
    else join(first, decided.mediaId);
  }

  const members = new Map<string, string[]>();
  for (const id of parent.keys()) {
    const root = find(id);
    const group = members.get(root);
    if (group) group.push(id);
    else members.set(root, [id]);
  }
  const similarity = new Map<string, number>();
  const pairsOf = new Map<string, Pair[]>();
  for (const pair of pairs) {
    const root = find(pair.mediaId);
    similarity.set(root, Math.max(similarity.get(root) ?? 0, pair.similarity));
    const inGroup = pairsOf.get(root);
    if (inGroup) inGroup.push(pair);
    else pairsOf.set(root, [pair]);
  }
  const decisionOf = new Map(decisions.map((decided) => [decided.mediaId, decided.decisionId]));

  const groups: Group[] = [];
  for (const [root, ids] of members) {
    if (ids.length < 2) continue;
    ids.sort();
    const decisionIds = new Set(ids.map((id) => decisionOf.get(id)));
    const state: GroupState = decisionIds.size === 1 && !decisionIds.has(undefined) ? 'decided' : decisionIds.size === 1 ? 'open' : 'changed';
    groups.push({ id: state === 'decided' ? [...decisionIds][0]! : ids[0], state, memberIds: ids, similarity: similarity.get(root) ?? 0, pairs: pairsOf.get(root) ?? [] });
  }
  return groups.sort((a, b) => b.memberIds.length - a.memberIds.length || b.similarity - a.similarity || (a.id < b.id ? -1 : 1));
}
