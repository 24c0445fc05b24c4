import { queryOptions } from '@tanstack/react-query';
import { api, unwrap, type Dataset, type Schemas } from '../../api/client';

export type EnrichmentModel = Schemas['EnrichmentModel'];

export const enrichmentKeys = {
  models: (datasetId: string) => ['enrichment-models', datasetId] as const,
  // Asked again when the status changes: an enriched copy's models are applied by the time it is READY.
  context: (datasetId: string, status: Dataset['status_new'] | undefined) => ['enrichment-context', datasetId, status] as const,
};

export const enrichmentQueries = {
  /** The models of this installation a dataset can be enriched with. */
  models: (datasetId: string) =>
    queryOptions({
      queryKey: enrichmentKeys.models(datasetId),
      queryFn: async () => unwrap(await api.GET('/api/v1/enrichment/{dataset_id}/list_models', { params: { path: { dataset_id: datasetId } } })),
    }),
  /** The enrichment a dataset has had (its models by type, and whether it was ever enriched). */
  context: (datasetId: string, status: Dataset['status_new'] | undefined) =>
    queryOptions({
      queryKey: enrichmentKeys.context(datasetId, status),
      queryFn: async () => unwrap(await api.GET('/api/v1/enrichment/{dataset_id}/context', { params: { path: { dataset_id: datasetId } } })),
    }),
};

/** Starts an ENRICHMENT task making a new dataset `<name> (enriched)` with a model per type. */
export async function enrichDataset(datasetId: string, models: Partial<Record<EnrichmentModel['type'], string>>) {
  return unwrap(await api.POST('/api/v1/dataset/{dataset_id}/enrich_dataset', { params: { path: { dataset_id: datasetId } }, body: { enrichment_models: models as Record<string, string> } }));
}
