import { z } from 'zod';
import type { MediaSelection } from '../../db/repositories/selection';
import { splitVql } from '../../lib/vql/compileVql';
import { parseVql, VqlError } from '../../lib/vql/parseVql';
import { VQL_DESCRIPTION } from './common';

/** The filters of a selection by VQL: row predicates only (a semantic search ranks media, it selects none). */
export const selectionVql = z.string().transform((raw, ctx) => {
  try {
    const { filters, semantic } = splitVql(parseVql(raw));
    if (semantic.length === 0) return filters;
    ctx.addIssue({ code: 'custom', message: 'vql: a semantic text filter ranks media and selects none; use op fts or other filters' });
  } catch (error) {
    if (!(error instanceof VqlError)) throw error;
    ctx.addIssue({ code: 'custom', message: error.message });
  }
  return z.NEVER;
});

/** Media picked in Explore: by id, whole clusters, everything a filter matches, or any union of these. */
export const selectionBody = z
  .object({
    media_ids: z.array(z.uuid('media_ids must be UUIDs')).min(1, 'media_ids must not be empty').max(10_000).optional(),
    cluster_id: z.uuid('cluster_id must be a UUID').optional().meta({ description: 'One whole cluster (every member)' }),
    cluster_ids: z.array(z.uuid('cluster_ids must be UUIDs')).min(1, 'cluster_ids must not be empty').max(1_000).optional(),
    vql: selectionVql.optional().meta({
      description: `Every image and frame the filters match ("[]" matches all). ${VQL_DESCRIPTION}`,
    }),
  })
  .refine((body) => body.media_ids || body.cluster_id || body.cluster_ids || body.vql, 'give media_ids, cluster_id, cluster_ids or vql')
  .meta({ id: 'MediaSelection', description: 'The union of the media listed, the clusters named and the media the VQL filters match' });

export function toMediaSelection(body: z.output<typeof selectionBody>): MediaSelection {
  return {
    mediaIds: body.media_ids,
    clusterIds: body.cluster_id || body.cluster_ids ? [...(body.cluster_id ? [body.cluster_id] : []), ...(body.cluster_ids ?? [])] : undefined,
    filters: body.vql,
  };
}
