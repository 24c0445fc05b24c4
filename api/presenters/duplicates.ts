import { z } from 'zod';
import type { UrlSigner } from '../../lib/auth/signedUrls';
import type { DuplicateReview, ReviewGroup } from '../../services/duplicates';
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

export const duplicateGroupSchema = z
  .object({
    group_id: z.string().meta({ description: "The decision's id for a decided group, else its smallest media id" }),
    state: z.enum(['open', 'changed', 'decided']).meta({ description: 'changed: decided before, and a copy joined since' }),
    similarity: z.number().meta({ description: 'Highest pair similarity in the group' }),
    members: z.array(memberSchema),
    suggested_keeper: z.object({
      media_id: z.uuid(),
      reasons: z.array(z.string()).meta({ description: 'Each fact that set a copy aside, in the order weighed; the last one decided' }),
      deciding_fact: z
        .enum(['kept_before', 'decodable', 'pixels', 'lossless', 'bits_per_pixel', 'quality_issues', 'earlier_upload', 'file_name'])
        .meta({ description: 'The fact that set the keeper apart from its closest rival' }),
    }),
    decision: z
      .object({ decision_id: z.uuid(), verdict: z.enum(['duplicates', 'not_duplicates']), decided_at: timestamp, decided_by: z.uuid().nullable() })
      .nullable(),
  })
  .meta({ id: 'DuplicateGroup' });

export const duplicateReviewSchema = z.object({
  groups: z.array(duplicateGroupSchema),
  total: z.number().int().meta({ description: 'Groups in the state asked for, on every page' }),
  counts: z.object({ open: z.number().int(), changed: z.number().int(), decided: z.number().int() }),
});

function presentGroup(group: ReviewGroup, origin: string, signer: UrlSigner): z.output<typeof duplicateGroupSchema> {
  return {
    group_id: group.id,
    state: group.state,
    similarity: group.similarity,
    members: group.members.map((member) => ({
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
    })),
    suggested_keeper: { media_id: group.suggestion.mediaId, reasons: group.suggestion.reasons, deciding_fact: group.suggestion.decidingFact },
    decision: group.decision && {
      decision_id: group.decision.id,
      verdict: group.decision.verdict,
      decided_at: isoTime(group.decision.decidedAt),
      decided_by: group.decision.decidedBy,
    },
  };
}

export function presentDuplicateReview(review: DuplicateReview, origin: string, signer: UrlSigner): z.output<typeof duplicateReviewSchema> {
  return { groups: review.groups.map((group) => presentGroup(group, origin, signer)), total: review.total, counts: review.counts };
}
