import { api, unwrap, type Schemas } from '../../api/client';

export type AcceptPreview = Schemas['DuplicateAcceptPreview'];
export type MergeConflict = Schemas['DuplicateMergeConflict'];

export const duplicateKeys = {
  all: (datasetId: string) => ['duplicates', datasetId] as const,
  preview: (datasetId: string, similarity: number, page: number) => ['duplicates', datasetId, 'preview', similarity, page] as const,
};

export async function fetchAcceptPreview(datasetId: string, similarity: number, page: number, pageSize: number): Promise<AcceptPreview> {
  return unwrap(
    await api.GET('/api/v1/dataset/{dataset_id}/duplicates/accept_suggestions/preview', {
      params: { path: { dataset_id: datasetId }, query: { similarity, page_number: page, page_size: pageSize } },
    }),
  );
}

/** Accept all held to the preview the curator saw: refused (409) if the groups changed since. */
export async function acceptAll(datasetId: string, similarity: number, preview: AcceptPreview) {
  return unwrap(
    await api.POST('/api/v1/dataset/{dataset_id}/duplicates/accept_suggestions', {
      params: { path: { dataset_id: datasetId } },
      body: { similarity, preview_token: preview.preview_token, expected_discarded_media: preview.discarded_media },
    }),
  );
}
export type AcceptResult = Awaited<ReturnType<typeof acceptAll>>;

export async function undoAcceptAll(datasetId: string, actionId: string) {
  return unwrap(await api.DELETE('/api/v1/dataset/{dataset_id}/duplicates/actions/{action_id}', { params: { path: { dataset_id: datasetId, action_id: actionId } } }));
}
