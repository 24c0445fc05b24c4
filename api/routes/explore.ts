import { Router } from '@koa/router';
import { z } from 'zod';
import type { Db } from '../../db/connection';
import type { UrlSigner } from '../../lib/auth/signedUrls';
import { parseVql, VqlError, type VqlFilter } from '../../lib/vql/parseVql';
import { exploreDataset } from '../../services/explore';
import type { TextEncoder } from '../../lib/ml/textEncoder';
import type { VectorStore } from '../../lib/vectors/vectorStore';
import { requireDataset } from '../../services/datasetAccess';
import { HttpError } from '../errors';
import { validate } from '../middleware/validate';
import { clusteringThreshold, entityType, requireEntityType } from '../searchParams';
import { presentCluster } from '../presenters/cluster';
import { datasetIdParams } from './datasets';

/** A query parameter holding a JSON array, e.g. labels=["cat","dog"]. */
const jsonArray = <T extends z.ZodType>(item: T, name: string) =>
  z.string().transform((raw, ctx) => {
    try {
      const value = JSON.parse(raw);
      const parsed = z.array(item).safeParse(value);
      if (parsed.success) return parsed.data as z.output<T>[];
    } catch {
      // reported below
    }
    ctx.addIssue({ code: 'custom', message: `${name} must be a JSON array` });
    return z.NEVER;
  });

const exploreQuery = z.object({
  entity_type: entityType,
  threshold: clusteringThreshold.default(0),
  page_number: z.coerce.number().int('page_number must be an integer').min(0, 'page_number starts at 0').default(0),
  caption: z.string().trim().min(1).optional(),
  image_caption: z.string().trim().min(1).optional(),
  textual_similarity_threshold: z.coerce.number().min(0).max(1).optional(),
  labels: jsonArray(z.string().min(1), 'labels').optional(),
  tags: jsonArray(z.uuid(), 'tags (of UUIDs)').optional(),
  vql: z.string().optional(),
  anchor_media_id: z.uuid('anchor_media_id must be a UUID').optional(),
  anchor_type: z.enum(['UPLOAD', 'MEDIA'], { message: 'anchor_type must be UPLOAD or MEDIA' }).optional(),
});

export function createExploreRouter(deps: {
  db: Db;
  vectors: VectorStore;
  textEncoder: () => Promise<TextEncoder>;
  signer: UrlSigner;
  publicUrl?: string;
}): Router {
  const router = new Router();

  router.get(
    '/explore/:dataset_id',
    requireEntityType,
    validate({ params: datasetIdParams, query: exploreQuery }),
    async (ctx) => {
      const { params, query } = ctx.state.input as { params: z.output<typeof datasetIdParams>; query: z.output<typeof exploreQuery> };
      if (Boolean(query.anchor_media_id) !== Boolean(query.anchor_type)) {
        throw new HttpError(422, 'anchor_media_id and anchor_type go together');
      }
      let vql: VqlFilter[];
      try {
        vql = query.vql ? parseVql(query.vql) : [];
      } catch (error) {
        if (error instanceof VqlError) throw new HttpError(422, error.message);
        throw error;
      }
      const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
      const clusters = await exploreDataset(deps, dataset, {
        entityType: query.entity_type,
        threshold: query.threshold,
        page: query.page_number,
        caption: query.caption ?? query.image_caption,
        textualSimilarityThreshold: query.textual_similarity_threshold,
        labels: query.labels,
        tags: query.tags,
        vql,
        anchor: query.anchor_media_id && query.anchor_type ? { id: query.anchor_media_id, type: query.anchor_type } : undefined,
      });
      ctx.body = {
        clusters: clusters.map((cluster) => presentCluster(cluster, query.threshold, deps.publicUrl ?? `${ctx.protocol}://${ctx.host}`, deps.signer)),
        metadata: { used_duckdb: false },
      };
    },
  );

  return router;
}
