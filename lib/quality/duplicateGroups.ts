/**
 * Duplicate review: groups of near-duplicate images, their decisions, and the copy to keep.
 * Pure: the service brings the pairs, the decisions and the members' figures.
 */

export interface Pair {
  mediaId: string;
  duplicateOf: string;
  similarity: number;
}

export interface Decided {
  mediaId: string;
  decisionId: string;
  role: 'keep' | 'discard' | 'distinct';
}

export interface Candidate {
  id: string;
  fileName: string;
  width: number | null;
  height: number | null;
  sizeBytes: number | null;
  /** Quality issues other than being a duplicate. */
  issues: string[];
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
  for (const pair of pairs) {
    const root = find(pair.mediaId);
    similarity.set(root, Math.max(similarity.get(root) ?? 0, pair.similarity));
  }
  const decisionOf = new Map(decisions.map((decided) => [decided.mediaId, decided.decisionId]));

  const groups: Group[] = [];
  for (const [root, ids] of members) {
    if (ids.length < 2) continue;
    ids.sort();
    const decisionIds = new Set(ids.map((id) => decisionOf.get(id)));
    const state: GroupState = decisionIds.size === 1 && !decisionIds.has(undefined) ? 'decided' : decisionIds.size === 1 ? 'open' : 'changed';
    groups.push({ id: state === 'decided' ? [...decisionIds][0]! : ids[0], state, memberIds: ids, similarity: similarity.get(root) ?? 0 });
  }
  return groups.sort((a, b) => b.memberIds.length - a.memberIds.length || b.similarity - a.similarity || (a.id < b.id ? -1 : 1));
}

const pixels = (candidate: Candidate) => (candidate.width ?? 0) * (candidate.height ?? 0);
const fileSize = (bytes: number) => (bytes < 1_000_000 ? `${Math.round(bytes / 1000)} kB` : `${(bytes / 1_000_000).toFixed(bytes < 10_000_000 ? 2 : 1)} MB`);

/**
 * The copy to keep and why: one kept before (when a group changed), else the one with fewest
 * quality issues, then the most pixels, then the largest file, then the first name. Each reason
 * names what sets it apart from the other members.
 */
export function suggestKeeper(candidates: Candidate[], keptBefore: ReadonlySet<string> = new Set()): { mediaId: string; reasons: string[] } {
  const earlier = candidates.filter((candidate) => keptBefore.has(candidate.id));
  if (earlier.length > 0) return { mediaId: earlier.sort((a, b) => (a.id < b.id ? -1 : 1))[0].id, reasons: ['kept when this group was decided before'] };
  const ranked = [...candidates].sort(
    (a, b) =>
      a.issues.length - b.issues.length ||
      pixels(b) - pixels(a) ||
      (b.sizeBytes ?? 0) - (a.sizeBytes ?? 0) ||
      a.fileName.localeCompare(b.fileName) ||
      (a.id < b.id ? -1 : 1),
  );
  const [best, ...others] = ranked;
  const reasons: string[] = [];
  if (others.every((other) => other.issues.length > best.issues.length)) reasons.push(best.issues.length === 0 ? 'no quality issues' : 'fewest quality issues');
  if (others.every((other) => pixels(other) < pixels(best))) reasons.push(`highest resolution (${best.width}×${best.height})`);
  if (others.every((other) => (other.sizeBytes ?? 0) < (best.sizeBytes ?? 0))) reasons.push(`largest file (${fileSize(best.sizeBytes ?? 0)})`);
  if (reasons.length === 0) reasons.push('as good as the others: first by name');
  return { mediaId: best.id, reasons };
}
