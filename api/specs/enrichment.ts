import { z } from 'zod';
import { ENRICHMENT_TYPES } from '../../lib/enrichment/catalog';
import { defineRoute } from '../routeSpec';
import { datasetIdParams } from './common';

const enrichmentType = z.enum(ENRICHMENT_TYPES);

export const enrichmentModelSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: enrichmentType,
    status: z.enum(['Active', 'Coming Soon']),
    vendor: z.string(),
    description: z.string(),
    dependencies: z.array(enrichmentType).nullable(),
  })
  .meta({ id: 'EnrichmentModel' });

export const enrichmentContextSchema = z
  .object({
    enrichment_context_id: z.uuid(),
    status: z.enum(['NEW', 'ENRICHED']),
    dataset_enrichment_models: z.object({ enrichment_models: z.record(z.string(), z.string()) }),
  })
  .meta({ id: 'EnrichmentContext' });

const enrichBody = z
  .object({
    enrichment_models: z
      .record(z.string(), z.string().min(1, 'model ids must not be empty').max(200, 'model ids are at most 200 characters'), {
        message: 'enrichment_models must be an object mapping enrichment type to model id',
      })
      .refine((models) => Object.keys(models).length > 0, 'enrichment_models must name at least one model')
      .refine((models) => Object.keys(models).every((type) => enrichmentType.safeParse(type).success), {
        message: `enrichment types are ${ENRICHMENT_TYPES.join(', ')}`,
      })
      .transform((models) => models as Partial<Record<z.infer<typeof enrichmentType>, string>>),
  })
  .strict();

export const enrichmentRoutes = {
  listModels: defineRoute({
    method: 'get',
    path: '/enrichment/:dataset_id/list_models',
    tag: 'enrichment',
    summary: 'The enrichment models of this installation; only Active ones can be applied',
    auth: 'user',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Enrichment models', schema: z.array(enrichmentModelSchema) } },
    errors: [403, [404, 'Dataset not found']],
  }),
  context: defineRoute({
    method: 'get',
    path: '/enrichment/:dataset_id/context',
    tag: 'enrichment',
    summary: 'The enrichment applied to the dataset (NEW when none)',
    auth: 'user',
    request: { params: datasetIdParams },
    responses: { 200: { description: 'Enrichment context', schema: enrichmentContextSchema } },
    errors: [403, [404, 'Dataset not found']],
  }),
  enrich: defineRoute({
    method: 'post',
    path: '/dataset/:dataset_id/enrich_dataset',
    tag: 'enrichment',
    summary: 'Enrich a copy of the dataset: a new dataset `<name> (enriched)`, task ENRICHMENT',
    description:
      'The dataset must be READY; it is READ ONLY while the enrichment runs. The new dataset holds the source\'s media ' +
      '(no bytes copied) plus the model outputs; poll it until READY. A model\'s dependencies must be applied already or requested with it.',
    auth: 'user',
    datasetState: 'service',
    request: { params: datasetIdParams, body: enrichBody },
    responses: { 200: { description: 'The enriched copy', schema: z.object({ dataset_id: z.uuid() }) } },
    errors: [
      403,
      [404, 'Dataset or enrichment model not found'],
      [409, 'Dataset is not READY, or a model is not Active, already applied, or missing a dependency'],
    ],
  }),
};
