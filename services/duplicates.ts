import { randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import type { User } from '../db/models';
import type { DatasetRow } from '../db/repositories/datasets';
import {
  decisionsOf,
  deleteDecision,
  duplicateEdges,
  duplicateMembers,
  recordDecisions,
  unknownImageIds,
  type DecisionRole,
  type DecisionRow,
  type DuplicateMemberRow,
  type NewDecision,
} from '../db/repositories/duplicates';
import { notFound, unprocessable } from '../lib/errors';
import { groupDuplicates, type Group, type GroupState } from '../lib/quality/duplicateGroups';
import { suggestKeeper, type KeeperSuggestion } from '../lib/quality/duplicateKeeper';

export type ReviewState = 'open' | 'decided' | 'all';

export interface ReviewMember extends DuplicateMemberRow {
  /** What the group's earlier decision said of it; null for a member that joined since (or an open group's). */
  role: DecisionRole | null;
}

export interface ReviewGroup {
  id: string;
  state: GroupState;
  similarity: number;
  members: ReviewMember[];
  suggestion: KeeperSuggestion;
  /** The decision covering the whole group (decided groups only). */
  decision: { id: string; verdict: 'duplicates' | 'not_duplicates'; decidedAt: Date; decidedBy: string | null } | null;
}

export interface DuplicateReview {
  groups: ReviewGroup[];
  /** Groups in the state asked for, over every page. */
  total: number;
  counts: Record<GroupState, number>;
}

/** Changed groups first (something joined a decided group), then open, then decided. */
const STATE_ORDER: Record<GroupState, number> = { changed: 0, open: 1, decided: 2 };

interface VersionGroups {
  groups: Group[];
  decisions: Map<string, DecisionRow>;
}

async function versionGroups(db: Db, versionId: string, similarity: number): Promise<VersionGroups> {
  const [pairs, decided] = await Promise.all([duplicateEdges(db, versionId, similarity), decisionsOf(db, versionId)]);
  return { groups: groupDuplicates(pairs, decided), decisions: new Map(decided.map((row) => [row.mediaId, row])) };
}

function reviewOf(group: Group, members: Map<string, DuplicateMemberRow>, decisions: Map<string, DecisionRow>): ReviewGroup {
  const reviewMembers = group.memberIds.map((id) => ({ ...members.get(id)!, role: decisions.get(id)?.role ?? null }));
  const keptBefore = new Set(reviewMembers.filter((member) => member.role === 'keep').map((member) => member.id));
  const first = decisions.get(group.memberIds[0]);
  return {
    id: group.id,
    state: group.state,
    similarity: group.similarity,
    members: reviewMembers,
    suggestion: suggestKeeper(reviewMembers, keptBefore),
    decision:
      group.state === 'decided' && first
        ? { id: first.decisionId, verdict: first.role === 'distinct' ? 'not_duplicates' : 'duplicates', decidedAt: first.decidedAt, decidedBy: first.decidedBy }
        : null,
  };
}

async function reviewsOf(db: Db, versionId: string, groups: Group[], decisions: Map<string, DecisionRow>): Promise<ReviewGroup[]> {
  const rows = await duplicateMembers(db, versionId, groups.flatMap((group) => group.memberIds));
  const members = new Map(rows.map((row) => [row.id, row]));
  return groups.map((group) => reviewOf(group, members, decisions));
}

/**
 * The dataset's near-duplicate image groups at `similarity` or above, in the state asked for
 * (`open` also holds decided groups something joined since), a page of them with each member's
 * resolution, size, issues and earlier role, the keeper suggested and why, and the decision.
 */
export async function reviewDuplicates(
  db: Db,
  dataset: DatasetRow,
  query: { similarity: number; state: ReviewState; page: number; pageSize: number },
): Promise<DuplicateReview> {
  const versionId = dataset.head_version_id;
  const { groups, decisions } = await versionGroups(db, versionId, query.similarity);
  const counts: Record<GroupState, number> = { open: 0, changed: 0, decided: 0 };
  for (const group of groups) counts[group.state]++;
  const wanted = groups
    .filter((group) => query.state === 'all' || (query.state === 'decided' ? group.state === 'decided' : group.state !== 'decided'))
    .sort((a, b) => STATE_ORDER[a.state] - STATE_ORDER[b.state]);
  const page = wanted.slice(query.page * query.pageSize, (query.page + 1) * query.pageSize);
  return { groups: await reviewsOf(db, versionId, page, decisions), total: wanted.length, counts };
}

export interface DecisionRequest {
  mediaIds: string[];
  verdict: 'duplicates' | 'not_duplicates';
  /** The copies to keep (duplicates only): the others are discarded. */
  keep: string[];
}

/**
 * Records decisions on groups of the dataset's images: keep some and discard the rest, or say they
 * are not duplicates. A media item decided before is decided anew. Refuses, changing nothing, ids
 * that are not images of the dataset or appear in two groups, and a keep list that is empty, keeps
 * everything or names a non-member.
 */
export async function decideDuplicates(db: Db, dataset: DatasetRow, user: User, requests: DecisionRequest[]): Promise<Array<{ decisionId: string; mediaIds: string[] }>> {
  const seen = new Set<string>();
  requests.forEach((request, index) => {
    const at = `body.groups.${index}`;
    const members = new Set(request.mediaIds);
    if (members.size !== request.mediaIds.length) throw unprocessable(`${at}.media_ids: a media id is listed twice`);
    for (const id of members) {
      if (seen.has(id)) throw unprocessable(`${at}.media_ids: ${id} is in two groups of this request`);
      seen.add(id);
    }
    if (request.verdict === 'not_duplicates' && request.keep.length > 0) throw unprocessable(`${at}.keep_media_ids: not_duplicates keeps every member; leave keep_media_ids out`);
    if (request.verdict === 'duplicates') {
      if (request.keep.length === 0) throw unprocessable(`${at}.keep_media_ids: name the copies to keep (at least one)`);
      if (request.keep.some((id) => !members.has(id))) throw unprocessable(`${at}.keep_media_ids: every kept copy must be one of media_ids`);
      if (new Set(request.keep).size === members.size) throw unprocessable(`${at}.keep_media_ids: keeping every member is not_duplicates`);
    }
  });
  const unknown = await unknownImageIds(db, dataset.head_version_id, [...seen]);
  if (unknown.length > 0) throw unprocessable(`body.groups: not images of this dataset: ${unknown.slice(0, 20).join(', ')}${unknown.length > 20 ? ', …' : ''}`);

  const decisions: NewDecision[] = requests.map((request) => {
    const keep = new Set(request.keep);
    const role = (id: string): DecisionRole => (request.verdict === 'not_duplicates' ? 'distinct' : keep.has(id) ? 'keep' : 'discard');
    return { decisionId: randomUUID(), members: request.mediaIds.map((mediaId) => ({ mediaId, role: role(mediaId) })) };
  });
  await recordDecisions(db, dataset.head_version_id, user.id, decisions);
  return decisions.map((decision) => ({ decisionId: decision.decisionId, mediaIds: decision.members.map((member) => member.mediaId) }));
}

/**
 * Decides every group that waits for a decision at `similarity` with its suggested keeper, the
 * others discarded; a group that changed keeps every copy kept before. Groups with members said to
 * be no duplicates are left for a person to look at.
 */
export async function acceptSuggestions(db: Db, dataset: DatasetRow, user: User, similarity: number): Promise<{ decidedGroups: number; discardedMedia: number }> {
  const versionId = dataset.head_version_id;
  const { groups, decisions } = await versionGroups(db, versionId, similarity);
  const waiting = groups.filter((group) => group.state !== 'decided' && !group.memberIds.some((id) => decisions.get(id)?.role === 'distinct'));
  const reviews = await reviewsOf(db, versionId, waiting, decisions);
  const chosen: NewDecision[] = reviews.map((review) => {
    const keptBefore = review.members.filter((member) => member.role === 'keep').map((member) => member.id);
    const keep = new Set(keptBefore.length > 0 ? keptBefore : [review.suggestion.mediaId]);
    return { decisionId: randomUUID(), members: review.members.map((member) => ({ mediaId: member.id, role: keep.has(member.id) ? 'keep' : 'discard' })) };
  });
  await recordDecisions(db, versionId, user.id, chosen);
  return {
    decidedGroups: chosen.length,
    discardedMedia: chosen.reduce((sum, decision) => sum + decision.members.filter((member) => member.role === 'discard').length, 0),
  };
}

/** Undoes a decision: its members are undecided again. */
export async function undoDecision(db: Db, dataset: DatasetRow, decisionId: string): Promise<void> {
  if (!(await deleteDecision(db, dataset.head_version_id, decisionId))) throw notFound('Decision not found');
}
