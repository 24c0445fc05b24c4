import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { clusterSchema, previewSchema } from '../presenters/cluster';
import { mediaFactsSchema } from '../presenters/mediaFacts';
import { clusteringThreshold, entityType, requireEntityType } from '../searchParams';
import { datasetIdParams, filePart, VQL_DESCRIPTION } from './common';

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
  threshold: clusteringThreshold.default(0).meta({ description: 'Clustering granularity, 0 finest; with an UPLOAD anchor, the one given at its upload (422 otherwise)' }),
  page_number: z.coerce.number().int('page_number must be an integer').min(0, 'page_number starts at 0').default(0),
  caption: z.string().trim().min(1).optional().meta({ description: 'Natural-language (semantic) search over captions, ranked by cosine distance' }),
  image_caption: z.string().trim().min(1).optional().meta({ description: 'Deprecated alias of caption' }),
  textual_similarity_threshold: z.coerce
    .number()
    .min(0)
    .max(1)
    .optional()
    .meta({ description: 'Keep caption/semantic results with a cosine distance below this' }),
  labels: jsonArray(z.string().min(1), 'labels').optional().meta({ description: 'JSON array of labels' }),
  tags: jsonArray(z.uuid(), 'tags (of UUIDs)').optional().meta({ description: 'JSON array of tag UUIDs' }),
  vql: z.string().optional().meta({ description: VQL_DESCRIPTION }),
  anchor_media_id: z.uuid('anchor_media_id must be a UUID').optional(),
  anchor_type: z.enum(['UPLOAD', 'MEDIA'], { message: 'anchor_type must be UPLOAD or MEDIA' }).optional(),
  batch_id: z
    .uuid('batch_id must be a UUID')
    .optional()
    .meta({ description: "Not in the contract (docs/decisions.md): only the media added by this batch, as a saved view's notification names it (metadata.batch_id)" }),
});

const fraction = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');
const boundingBox = z
  .object({ x: fraction, y: fraction, width: fraction.gt(0, 'must be above 0'), height: fraction.gt(0, 'must be above 0') })
  .refine((box) => box.x + box.width <= 1 + 1e-9 && box.y + box.height <= 1 + 1e-9, 'the box must lie inside the image');

const anchorQuery = z.object({
  entity_type: entityType,
  threshold: clusteringThreshold.optional().meta({ description: 'The threshold Explore must then search this anchor at' }),
  bounding_box: z
    .string()
    .transform((raw, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'bounding_box must be JSON {x, y, width, height}' });
        return z.NEVER;
      }
    })
    .pipe(boundingBox)
    .optional()
    .meta({ description: 'JSON {x, y, width, height}, fractions of the image' }),
});

const clusterParams = datasetIdParams.extend({ cluster_id: z.uuid('cluster_id must be a UUID') });
const mediaParams = datasetIdParams.extend({ media_id: z.uuid('media_id must be a UUID') });
const PAGE_SIZE_MESSAGE = 'page_size must be a whole number 1-500';
const clusterPageQuery = z.object({
  page_number: z.coerce.number({ message: 'page_number must be a whole number, 0 or more' }).int('page_number must be a whole number, 0 or more').min(0, 'page_number must be a whole number, 0 or more').default(0),
  page_size: z.coerce.number({ message: PAGE_SIZE_MESSAGE }).int(PAGE_SIZE_MESSAGE).min(1, PAGE_SIZE_MESSAGE).max(500, PAGE_SIZE_MESSAGE).default(100),
});

export const exploreRoutes = {
  explore: defineRoute({
    method: 'get',
    path: '/explore/:dataset_id',
    tag: 'explore',
    summary: 'Clusters of a dataset, filtered and searched',
    auth: 'user',
    before: [requireEntityType],
    request: { params: datasetIdParams, query: exploreQuery },
    responses: {
      200: {
        description: 'Clusters',
        schema: z.object({
          clusters: z.array(clusterSchema),
          metadata: z.object({
            used_duckdb: z.boolean(),
            hint: z.string().nullable().optional().meta({
              description: 'Why a text search (caption, image_caption or a semantic VQL filter) found nothing, when the dataset has no captions and no concept vectors to read; null otherwise',
            }),
          }),
        }),
      },
    },
    errors: [[400, 'entity_type missing'], 403, 404, [409, 'The dataset cannot be searched in its status, or a VQL map region of an older map layout']],
  }),
  uploadAnchor: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/search-image-similarity',
    tag: 'explore',
    summary: 'Upload a query image for visual search',
    description: 'Returns an anchor to pass to Explore as anchor_media_id with anchor_type=UPLOAD.',
    auth: 'user',
    datasetState: 'service',
    before: [requireEntityType],
    request: { params: datasetIdParams, query: anchorQuery },
    handlerReads: { form: z.object({ file: filePart }) },
    responses: {
      200: { description: 'Anchor', schema: z.object({ anchor_media_id: z.uuid(), anchor_type: z.literal('UPLOAD') }) },
    },
    errors: [[400, 'entity_type or file missing, or not an image'], 403, 404, [409, 'No visual index in this status'], 413],
  }),
  clusterMedia: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/clusters/:cluster_id/media',
    tag: 'explore',
    summary: "Every member of an image cluster, a page at a time (Explore shows a cluster's first previews only)",
    description: 'Images and video frames of the cluster in the dataset as it is now, most unique first.',
    auth: 'user',
    request: { params: clusterParams, query: clusterPageQuery },
    responses: {
      200: {
        description: 'A page of members',
        schema: z.object({ cluster_id: z.uuid(), similarity_threshold: z.string(), n_media: z.number().int(), media: z.array(previewSchema) }),
      },
    },
    errors: [403, [404, 'Dataset or cluster not found']],
  }),
  mediaFacts: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/media/:media_id',
    tag: 'explore',
    summary: 'One image or video of the dataset: its file, size, caption, labels, tags and quality issues',
    auth: 'user',
    request: { params: mediaParams },
    responses: { 200: { description: 'Media facts', schema: mediaFactsSchema } },
    errors: [403, [404, 'Dataset or media not found']],
  }),
};
