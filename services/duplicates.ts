import { createHash, randomUUID } from 'node:crypto';
import type { Db } from '../db/connection';
import type { User } from '../db/models';
import type { DatasetRow } from '../db/repositories/datasets';
import {
  applyMerges,
  decisionsOf,
  deleteDecisions,
  duplicateEdges,
  duplicateMembers,
  memberFacts,
  recordDecisions,
  unknownReviewedIds,
  type DecisionRole,
  type DecisionRow,
  type DuplicateMemberRow,
  type NewDecision,
} from '../db/repositories/duplicates';
import { labelFieldsOfVersion } from '../db/repositories/groundTruth';
import { conflict, notFound, unprocessable } from '../lib/errors';
import { mergeIntoKeeper, type KeeperMerge, type MergeConflict } from '../lib/quality/duplicateMerge';
import { lockDatasetFor } from './datasetStates';
import { groupDuplicates, type Group, type GroupState } from '../lib/quality/duplicateGroups';
import { suggestKeeper, type KeeperSuggestion } from '../lib/quality/duplicateKeeper';
import type { DuplicateTier } from '../lib/quality/pixelMatch';
import type { Pair } from '../lib/quality/duplicateGroups';
import { videoPairs } from './videoDuplicates';

export type ReviewState = 'open' | 'decided' | 'all';

export interface ReviewMember extends DuplicateMemberRow {
  /** What the group's earlier decision said of it; null for a member that joined since (or an open group's). */
  role: DecisionRole | null;
}

export interface ReviewGroup {
  id: string;
  state: GroupState;
  similarity: number;
  /** The pairs that joined the members, each with its tier and why. */
  pairs: Pair[];
  members: ReviewMember[];
  suggestion: KeeperSuggestion;
  /** The decision covering the whole group (decided groups only), with the conflicts its merge left to the curator. */
  decision: {
    id: string;
    verdict: 'duplicates' | 'not_duplicates';
    decidedAt: Date;
    decidedBy: string | null;
    actionId: string | null;
    conflicts: MergeConflict[];
  } | null;
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

/** Which pairs join groups: at `similarity` or above, in `tiers` (lib/quality/pixelMatch.ts). */
export interface PairFilter {
  similarity: number;
  tiers: readonly DuplicateTier[];
}

/** The version's groups of image copies and of video copies (services/videoDuplicates.ts), with their decisions. */
async function versionGroups(db: Db, versionId: string, filter: PairFilter): Promise<VersionGroups> {
  const [imagePairs, clipPairs, decided] = await Promise.all([duplicateEdges(db, versionId, filter.similarity, filter.tiers), videoPairs(db, versionId, filter), decisionsOf(db, versionId)]);
  return { groups: groupDuplicates([...imagePairs, ...clipPairs], decided), decisions: new Map(decided.map((row) => [row.mediaId, row])) };
}

function reviewOf(group: Group, members: Map<string, DuplicateMemberRow>, decisions: Map<string, DecisionRow>): ReviewGroup {
  const reviewMembers = group.memberIds.map((id) => ({ ...members.get(id)!, role: decisions.get(id)?.role ?? null }));
  const keptBefore = new Set(reviewMembers.filter((member) => member.role === 'keep').map((member) => member.id));
  const first = decisions.get(group.memberIds[0]);
  return {
    id: group.id,
    state: group.state,
    similarity: group.similarity,
    pairs: group.pairs,
    members: reviewMembers,
    suggestion: suggestKeeper(reviewMembers, keptBefore),
    decision:
      group.state === 'decided' && first
        ? {
            id: first.decisionId,
            verdict: first.role === 'distinct' ? 'not_duplicates' : 'duplicates',
            decidedAt: first.decidedAt,
            decidedBy: first.decidedBy,
            actionId: first.actionId,
            conflicts: group.memberIds.flatMap((id) => decisions.get(id)?.merged?.conflicts ?? []),
          }
        : null,
  };
}

async function reviewsOf(db: Db, versionId: string, groups: Group[], decisions: Map<string, DecisionRow>): Promise<ReviewGroup[]> {
  const rows = await duplicateMembers(db, versionId, groups.flatMap((group) => group.memberIds));
  const members = new Map(rows.map((row) => [row.id, row]));
  return groups.map((group) => reviewOf(group, members, decisions));
}

/**
 * The copies a selection leaves out (issue 52): every media item decided a discard, and those Accept all would
 * discard now among exact and near-identical copies.
 */
export async function copiesLeftOut(db: Db, versionId: string): Promise<Set<string>> {
  const [decided, plan] = await Promise.all([decisionsOf(db, versionId), acceptPlan(db, versionId, { similarity: 0, tiers: ['exact', 'near_identical'] })]);
  const planned = plan.decisions.flatMap((decision) => decision.members);
  return new Set([...decided, ...planned].filter((member) => member.role === 'discard').map((member) => member.mediaId));
}

/**
 * The dataset's near-duplicate image groups at `similarity` or above, in the state asked for
 * (`open` also holds decided groups something joined since), a page of them with each member's
 * resolution, size, issues and earlier role, the keeper suggested and why, and the decision.
 */
export async function reviewDuplicates(
  db: Db,
  dataset: DatasetRow,
  query: PairFilter & { state: ReviewState; page: number; pageSize: number },
): Promise<DuplicateReview> {
  const versionId = dataset.head_version_id;
  const { groups, decisions } = await versionGroups(db, versionId, query);
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
export async function decideDuplicates(db: Db, dataset: DatasetRow, user: User, requests: DecisionRequest[]): Promise<ResolvedDecision[]> {
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
  return db.transaction(async (trx) => {
    await lockDatasetFor(trx, dataset, 'review_duplicates');
    const unknown = await unknownReviewedIds(trx, dataset.head_version_id, [...seen]);
    if (unknown.length > 0) throw unprocessable(`body.groups: not images or videos of this dataset: ${unknown.slice(0, 20).join(', ')}${unknown.length > 20 ? ', …' : ''}`);
    const decisions: NewDecision[] = requests.map((request) => {
      const keep = new Set(request.keep);
      const role = (id: string): DecisionRole => (request.verdict === 'not_duplicates' ? 'distinct' : keep.has(id) ? 'keep' : 'discard');
      return { decisionId: randomUUID(), members: request.mediaIds.map((mediaId) => ({ mediaId, role: role(mediaId) })) };
    });
    return resolve(trx, dataset.head_version_id, user.id, decisions, null);
  });
}

export interface ResolvedDecision {
  decisionId: string;
  mediaIds: string[];
  /** What the keepers gained from the discarded copies. */
  merged: { labels: number; tags: number; metadataFields: number };
  /** Values the discarded copies disagree on with the keeper (or among themselves): left as they were, for the curator. */
  conflicts: MergeConflict[];
}

/**
 * Records decisions, each keeper gaining the labels, tags and custom metadata of its group's discarded copies
 * that it lacks (recorded on its row, so an undo takes them back); conflicting values are listed, not resolved.
 */
async function resolve(trx: Db, versionId: string, userId: string, decisions: NewDecision[], actionId: string | null): Promise<ResolvedDecision[]> {
  const resolved = decisions.filter((decision) => decision.members.some((member) => member.role === 'discard'));
  const facts = new Map((await memberFacts(trx, versionId, resolved.flatMap((decision) => decision.members.map((member) => member.mediaId)))).map((row) => [row.id, row]));
  const { labelField } = await labelFieldsOfVersion(trx, versionId);
  const mergesOf = new Map<string, KeeperMerge[]>();
  for (const decision of resolved) {
    const discarded = decision.members.filter((member) => member.role === 'discard').map((member) => facts.get(member.mediaId)!);
    const merges = decision.members.filter((member) => member.role === 'keep').map((member) => mergeIntoKeeper(facts.get(member.mediaId)!, discarded, labelField));
    mergesOf.set(decision.decisionId, merges);
    for (const member of decision.members) {
      const merge = merges.find((candidate) => candidate.keeperId === member.mediaId);
      if (merge) member.merged = { labels: merge.labels, tagIds: merge.tagIds, metadata: merge.metadata, conflicts: merge.conflicts };
    }
  }
  await applyMerges(trx, versionId, [...mergesOf.values()].flat());
  await recordDecisions(trx, versionId, userId, decisions, actionId);
  return decisions.map((decision) => {
    const merges = mergesOf.get(decision.decisionId) ?? [];
    return {
      decisionId: decision.decisionId,
      mediaIds: decision.members.map((member) => member.mediaId),
      merged: {
        labels: merges.reduce((sum, merge) => sum + merge.labels.length, 0),
        tags: merges.reduce((sum, merge) => sum + merge.tagIds.length, 0),
        metadataFields: merges.reduce((sum, merge) => sum + Object.keys(merge.metadata).length, 0),
      },
      conflicts: merges.flatMap((merge) => merge.conflicts),
    };
  });
}

interface AcceptPlan {
  reviews: ReviewGroup[];
  decisions: NewDecision[];
  discardedMedia: number;
  /** Names the plan: the same while the groups, their members and the keepers chosen stay the same. */
  token: string;
}

/**
 * What Accept all would decide now: every group waiting at `similarity` with its suggested keeper, the others
 * discarded; a group that changed keeps every copy kept before. Groups with members said to be no duplicates
 * are left for a person to look at.
 */
async function acceptPlan(db: Db, versionId: string, filter: PairFilter): Promise<AcceptPlan> {
  const { groups, decisions } = await versionGroups(db, versionId, filter);
  const waiting = groups.filter((group) => group.state !== 'decided' && !group.memberIds.some((id) => decisions.get(id)?.role === 'distinct'));
  const reviews = await reviewsOf(db, versionId, waiting, decisions);
  const planned: NewDecision[] = reviews.map((review) => {
    const keptBefore = review.members.filter((member) => member.role === 'keep').map((member) => member.id);
    const keep = new Set(keptBefore.length > 0 ? keptBefore : [review.suggestion.mediaId]);
    return { decisionId: randomUUID(), members: review.members.map((member) => ({ mediaId: member.id, role: keep.has(member.id) ? 'keep' : 'discard' })) };
  });
  const hash = createHash('sha256');
  for (const decision of planned) hash.update(decision.members.map((member) => `${member.mediaId}:${member.role}`).join(',') + ';');
  return {
    reviews,
    decisions: planned,
    discardedMedia: planned.reduce((sum, decision) => sum + decision.members.filter((member) => member.role === 'discard').length, 0),
    token: hash.digest('hex').slice(0, 32),
  };
}

export interface AcceptPreview {
  /** A page of the groups Accept all would decide, with the copies each keeps (the others it discards). */
  groups: Array<ReviewGroup & { keep: string[] }>;
  totalGroups: number;
  discardedMedia: number;
  previewToken: string;
}

/** What Accept all would decide at `similarity`, a page of groups at a time, and the token that names this plan. */
export async function previewAcceptSuggestions(db: Db, dataset: DatasetRow, query: PairFilter & { page: number; pageSize: number }): Promise<AcceptPreview> {
  const plan = await acceptPlan(db, dataset.head_version_id, query);
  return {
    groups: plan.reviews.slice(query.page * query.pageSize, (query.page + 1) * query.pageSize).map((review, index) => ({
      ...review,
      keep: plan.decisions[query.page * query.pageSize + index].members.filter((member) => member.role === 'keep').map((member) => member.mediaId),
    })),
    totalGroups: plan.reviews.length,
    discardedMedia: plan.discardedMedia,
    previewToken: plan.token,
  };
}

export interface AcceptRequest extends PairFilter {
  /** The preview's token: refused when the plan is no longer the one previewed. */
  previewToken?: string;
  /** Refused unless Accept all would discard exactly this many copies. */
  expectedDiscardedMedia?: number;
  /** Refused when Accept all would discard more copies than this. */
  maxDiscardedMedia?: number;
}

export interface AcceptResult {
  actionId: string;
  decidedGroups: number;
  discardedMedia: number;
  merged: ResolvedDecision['merged'];
  conflicts: MergeConflict[];
}

/**
 * Decides every waiting group with its suggested keeper (acceptPlan), as one action that one undo takes back, in
 * one transaction holding the dataset's status. Refuses, deciding nothing, when the plan is not the one previewed.
 */
export async function acceptSuggestions(db: Db, dataset: DatasetRow, user: User, request: AcceptRequest): Promise<AcceptResult> {
  const versionId = dataset.head_version_id;
  return db.transaction(async (trx) => {
    await lockDatasetFor(trx, dataset, 'review_duplicates');
    const plan = await acceptPlan(trx, versionId, request);
    const now = `it would now decide ${plan.decisions.length} group${plan.decisions.length === 1 ? '' : 's'} and discard ${plan.discardedMedia} cop${plan.discardedMedia === 1 ? 'y' : 'ies'}`;
    if (request.previewToken !== undefined && request.previewToken !== plan.token) throw conflict(`The duplicate groups changed since the preview: ${now}; preview again`);
    if (request.expectedDiscardedMedia !== undefined && request.expectedDiscardedMedia !== plan.discardedMedia) {
      throw conflict(`Accept all was expected to discard ${request.expectedDiscardedMedia} copies, but ${now}; preview again`);
    }
    if (request.maxDiscardedMedia !== undefined && plan.discardedMedia > request.maxDiscardedMedia) {
      throw conflict(`Accept all would discard ${plan.discardedMedia} copies, more than max_discarded_media (${request.maxDiscardedMedia})`);
    }
    const actionId = randomUUID();
    const resolved = await resolve(trx, versionId, user.id, plan.decisions, actionId);
    const sum = (figure: keyof ResolvedDecision['merged']) => resolved.reduce((total, decision) => total + decision.merged[figure], 0);
    return {
      actionId,
      decidedGroups: resolved.length,
      discardedMedia: plan.discardedMedia,
      merged: { labels: sum('labels'), tags: sum('tags'), metadataFields: sum('metadataFields') },
      conflicts: resolved.flatMap((decision) => decision.conflicts),
    };
  });
}

/** Undoes a decision: its members are undecided again, and its keepers lose what it merged into them. */
export async function undoDecision(db: Db, dataset: DatasetRow, decisionId: string): Promise<void> {
  await db.transaction(async (trx) => {
    await lockDatasetFor(trx, dataset, 'review_duplicates');
    if ((await deleteDecisions(trx, dataset.head_version_id, { decisionId })).length === 0) throw notFound('Decision not found');
  });
}

/** Undoes every decision of one Accept all; how many decisions it undid. */
export async function undoAcceptAll(db: Db, dataset: DatasetRow, actionId: string): Promise<number> {
  return db.transaction(async (trx) => {
    await lockDatasetFor(trx, dataset, 'review_duplicates');
    const undone = await deleteDecisions(trx, dataset.head_version_id, { actionId });
    if (undone.length === 0) throw notFound('Accept all action not found');
    return undone.length;
  });
}
