import { z } from 'zod';
import type { UrlSigner } from '../../lib/auth/signedUrls';
import type { AcceptPreview, AcceptResult, DuplicateReview, ResolvedDecision, ReviewGroup, ReviewMember } from '../../services/duplicates';
import type { MergeConflict } from '../../lib/quality/duplicateMerge';
import type { Pair } from '../../lib/quality/duplicateGroups';
import { KEEPER_FACTS } from '../../lib/quality/duplicateKeeper';
import { isoTime, timestamp } from './time';

const memberSchema = z.object({
  media_id: z.uuid(),
  file_name: z.string(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  file_size: z.number().int().nullable().meta({ description: 'Bytes' }),
  issues: z.array(z.string()).meta({ description: 'Quality issues other than being a duplicate' }),
  format: z.string().nullable().meta({ description: 'The encoding (jpeg, png, webp, …)' }),
  uploaded_at: timestamp,
  role: z.enum(['keep', 'discard', 'distinct']).nullable().meta({ description: "What the group's earlier decision said of it; null when undecided (a member that joined a decided group since is new)" }),
  media_uri: z.string(),
  media_thumb_uri: z.string(),
});

export const mergeConflictSchema = z
  .object({
    keeper_media_id: z.uuid(),
    field: z.string(),
    kind: z.enum(['class', 'metadata']).meta({ description: 'class: the declared label field; metadata: another custom metadata field' }),
    kept: z.unknown().meta({ description: "The keeper's value, which stays; null when it has none (the discarded copies disagree among themselves)" }),
    discarded: z.array(z.object({ media_id: z.uuid(), value: z.unknown() })),
  })
  .meta({ id: 'DuplicateMergeConflict', description: 'A value the discarded copies disagree on: left as it was, for the curator' });

export const mergedSchema = z
  .object({ labels: z.number().int(), tags: z.number().int(), metadata_fields: z.number().int() })
  .meta({ description: "What the keepers gained from the discarded copies: labels, tags and custom metadata fields they lacked" });

export const duplicatePairSchema = z
  .object({
    media_id: z.uuid(),
    duplicate_of: z.uuid().meta({ description: 'The copy the analysis found for media_id' }),
    similarity: z.number().meta({ description: 'Cosine similarity of their embeddings' }),
    tier: z.enum(['exact', 'near_identical', 'similar']).meta({ description: 'exact: the same bytes; near_identical: the thumbnails\' pixels confirm it; similar: the embedding alone' }),
    reason: z.string().meta({ description: 'Why, of media_id against duplicate_of: "same bytes", "same picture at 60 % size", "similar content, 0.94"' }),
  })
  .meta({ id: 'DuplicatePair' });

export const duplicateGroupSchema = z
  .object({
    group_id: z.string().meta({ description: "The decision's id for a decided group, else its smallest media id" }),
    state: z.enum(['open', 'changed', 'decided']).meta({ description: 'changed: decided before, and a copy joined since' }),
    similarity: z.number().meta({ description: 'Highest pair similarity in the group' }),
    pairs: z.array(duplicatePairSchema).meta({ description: 'The pairs that joined its members (a decided group may hold none at the tiers asked for)' }),
    members: z.array(memberSchema).meta({ description: 'The suggested keeper first, then by media id; at most members_limit of them' }),
    member_count: z.number().int().meta({ description: 'Members of the group, shown or not' }),
    suggested_keeper: z.object({
      media_id: z.uuid(),
      reasons: z.array(z.string()).meta({ description: 'Each fact that set a copy aside, in the order weighed; the last one decided' }),
      deciding_fact: z
        .enum(KEEPER_FACTS)
        .meta({ description: 'The fact that set the keeper apart from its closest rival' }),
    }),
    decision: z
      .object({
        decision_id: z.uuid(),
        verdict: z.enum(['duplicates', 'not_duplicates']),
        decided_at: timestamp,
        decided_by: z.uuid().nullable(),
        action_id: z.uuid().nullable().meta({ description: 'The Accept all that made it (undone together), if one did' }),
        conflicts: z.array(mergeConflictSchema),
      })
      .nullable(),
  })
  .meta({ id: 'DuplicateGroup' });

export const duplicateReviewSchema = z.object({
  groups: z.array(duplicateGroupSchema),
  total: z.number().int().meta({ description: 'Groups in the state asked for, on every page' }),
  counts: z.object({ open: z.number().int(), changed: z.number().int(), decided: z.number().int() }),
});

type MemberOut = z.output<typeof memberSchema>;

function presentMember(member: ReviewMember, origin: string, signer: UrlSigner): MemberOut {
  return {
    media_id: member.id,
    file_name: member.fileName,
    width: member.width,
    height: member.height,
    file_size: member.sizeBytes,
    format: member.format,
    uploaded_at: isoTime(member.createdAt),
    issues: member.issues,
    role: member.role,
    media_uri: origin + signer.mediaPath(member.id, 'file'),
    media_thumb_uri: origin + signer.mediaPath(member.id, 'thumbnail'),
  };
}

export const presentConflict = (conflict: MergeConflict): z.output<typeof mergeConflictSchema> => ({
  keeper_media_id: conflict.keeperId,
  field: conflict.field,
  kind: conflict.kind,
  kept: conflict.kept,
  discarded: conflict.discarded.map((entry) => ({ media_id: entry.mediaId, value: entry.value })),
});

const presentPair = (pair: Pair): z.output<typeof duplicatePairSchema> => ({
  media_id: pair.mediaId,
  duplicate_of: pair.duplicateOf,
  similarity: pair.similarity,
  tier: pair.tier,
  reason: pair.reason,
});

/** The suggested keeper first, then the others in id order: what a capped list must not leave out. */
function keeperFirst(group: ReviewGroup): ReviewMember[] {
  return [...group.members].sort((a, b) => Number(b.id === group.suggestion.mediaId) - Number(a.id === group.suggestion.mediaId) || (a.id < b.id ? -1 : 1));
}

function presentGroup(group: ReviewGroup, origin: string, signer: UrlSigner, membersLimit: number): z.output<typeof duplicateGroupSchema> {
  return {
    group_id: group.id,
    state: group.state,
    similarity: group.similarity,
    pairs: group.pairs.map(presentPair),
    members: keeperFirst(group).slice(0, membersLimit).map((member) => presentMember(member, origin, signer)),
    member_count: group.members.length,
    suggested_keeper: { media_id: group.suggestion.mediaId, reasons: group.suggestion.reasons, deciding_fact: group.suggestion.decidingFact },
    decision: group.decision && {
      decision_id: group.decision.id,
      verdict: group.decision.verdict,
      decided_at: isoTime(group.decision.decidedAt),
      decided_by: group.decision.decidedBy,
      action_id: group.decision.actionId,
      conflicts: group.decision.conflicts.map(presentConflict),
    },
  };
}

export function presentDuplicateReview(review: DuplicateReview, origin: string, signer: UrlSigner, membersLimit: number): z.output<typeof duplicateReviewSchema> {
  return { groups: review.groups.map((group) => presentGroup(group, origin, signer, membersLimit)), total: review.total, counts: review.counts };
}

export const decisionsResultSchema = z.object({
  decisions: z.array(z.object({ decision_id: z.uuid(), media_ids: z.array(z.uuid()), merged: mergedSchema, conflicts: z.array(mergeConflictSchema) })),
});

export function presentDecisions(decisions: ResolvedDecision[]): z.output<typeof decisionsResultSchema> {
  return {
    decisions: decisions.map((decision) => ({
      decision_id: decision.decisionId,
      media_ids: decision.mediaIds,
      merged: { labels: decision.merged.labels, tags: decision.merged.tags, metadata_fields: decision.merged.metadataFields },
      conflicts: decision.conflicts.map(presentConflict),
    })),
  };
}

/** Conflicts an Accept all answer lists at most (the decided groups keep every one: the review shows them). */
export const LISTED_CONFLICTS = 100;

export const acceptResultSchema = z.object({
  action_id: z.uuid().meta({ description: 'DELETE …/duplicates/actions/{action_id} undoes the whole action' }),
  decided_groups: z.number().int(),
  discarded_media: z.number().int(),
  merged: mergedSchema,
  conflicts: z.array(mergeConflictSchema).meta({ description: `The first ${LISTED_CONFLICTS} conflicts` }),
  conflict_count: z.number().int(),
});

export function presentAcceptResult(result: AcceptResult): z.output<typeof acceptResultSchema> {
  return {
    action_id: result.actionId,
    decided_groups: result.decidedGroups,
    discarded_media: result.discardedMedia,
    merged: { labels: result.merged.labels, tags: result.merged.tags, metadata_fields: result.merged.metadataFields },
    conflicts: result.conflicts.slice(0, LISTED_CONFLICTS).map(presentConflict),
    conflict_count: result.conflicts.length,
  };
}

/** Discarded copies a preview shows per group at most (discarded_count says how many there are). */
export const PREVIEWED_DISCARDS = 24;

export const acceptPreviewSchema = z
  .object({
    groups: z.array(
      z.object({
        group_id: z.string(),
        state: z.enum(['open', 'changed']),
        similarity: z.number(),
        pairs: z.array(duplicatePairSchema),
        keep: z.array(memberSchema).meta({ description: 'The copies it keeps: the suggested keeper, or in a changed group those kept before' }),
        keeper_reasons: z.array(z.string()),
        discard: z.array(memberSchema).meta({ description: `The copies it discards, at most ${PREVIEWED_DISCARDS}` }),
        discard_count: z.number().int(),
      }),
    ),
    total_groups: z.number().int().meta({ description: 'Groups Accept all would decide, on every page' }),
    discarded_media: z.number().int().meta({ description: 'Copies Accept all would discard, in every group' }),
    preview_token: z.string().meta({ description: 'Send it with accept_suggestions: refused (409) if the plan changed since' }),
  })
  .meta({ id: 'DuplicateAcceptPreview' });

export function presentAcceptPreview(preview: AcceptPreview, origin: string, signer: UrlSigner): z.output<typeof acceptPreviewSchema> {
  return {
    groups: preview.groups.map((group) => {
      const keep = new Set(group.keep);
      const kept = (member: ReviewMember) => keep.has(member.id);
      const discard = group.members.filter((member) => !kept(member));
      return {
        group_id: group.id,
        state: group.state === 'changed' ? 'changed' : 'open',
        similarity: group.similarity,
        pairs: group.pairs.map(presentPair),
        keep: group.members.filter(kept).map((member) => presentMember(member, origin, signer)),
        keeper_reasons: group.suggestion.reasons,
        discard: discard.slice(0, PREVIEWED_DISCARDS).map((member) => presentMember(member, origin, signer)),
        discard_count: discard.length,
      };
    }),
    total_groups: preview.totalGroups,
    discarded_media: preview.discardedMedia,
    preview_token: preview.previewToken,
  };
}
