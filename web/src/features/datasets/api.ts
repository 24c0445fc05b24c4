import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { TRANSIENT_DATASET_STATUSES } from '../../api/status';
import { postForm, perFileProgress, uploadName } from '../../api/upload';
import type { paths } from '../../api/schema';

/** Query keys of datasets: every page's copy of one dataset, and the list. */
export const datasetKeys = {
  list: ['datasets'] as const,
  /** Every dataset's record, whichever page asked for it. */
  details: ['dataset'] as const,
  detail: (datasetId: string) => ['dataset', datasetId] as const,
};

export const datasetQueries = {
  list: () => queryOptions({ queryKey: datasetKeys.list, queryFn: async () => unwrap(await api.GET('/api/v1/datasets')) }),
  detail: (datasetId: string) =>
    queryOptions({
      queryKey: datasetKeys.detail(datasetId),
      queryFn: async () => unwrap(await api.GET('/api/v1/dataset/{dataset_id}', { params: { path: { dataset_id: datasetId } } })),
    }),
};

/** The dataset record, asked again every 2 s while a task changes its status. */
export function useDataset(datasetId: string) {
  return useQuery({
    ...datasetQueries.detail(datasetId),
    refetchInterval: (query) => (query.state.data && TRANSIENT_DATASET_STATUSES.has(query.state.data.status_new) ? 2000 : false),
  });
}

/** Every dataset, asked again every 2 s while one is on its way to READY or ERROR. */
export function useDatasets() {
  return useQuery({
    ...datasetQueries.list(),
    refetchInterval: (query) => (query.state.data?.some((dataset) => TRANSIENT_DATASET_STATUSES.has(dataset.status_new)) ? 2000 : false),
  });
}

export async function renameDataset(datasetId: string, name: string) {
  return unwrap(await api.PATCH('/api/v1/dataset/{dataset_id}', { params: { path: { dataset_id: datasetId } }, body: { name } }));
}

export async function deleteDataset(datasetId: string) {
  return unwrap(await api.DELETE('/api/v1/dataset/{dataset_id}', { params: { path: { dataset_id: datasetId } } }));
}

/** A new, empty dataset (UPLOADING) and its id. */
export async function newDataset(name: string): Promise<string> {
  return unwrap(await api.GET('/api/v1/ingestion/new_dataset', { params: { query: { dataset_name: name } } })).dataset_id;
}

/** An upload transaction of a new dataset: the batches go into it, then process_files indexes them. */
export async function openUpload(datasetId: string): Promise<number> {
  return unwrap(await api.GET('/api/v1/ingestion/{dataset_id}/data_files', { params: { path: { dataset_id: datasetId } } })).trans_id;
}

type UploadAnswer = paths['/api/v1/ingestion/{dataset_id}/data_files/{transaction_id}']['post']['responses'][202]['content']['application/json'];

/** One batch of files (field `files`) into an upload transaction, with each file's progress. */
export function uploadBatch(datasetId: string, transactionId: number, files: readonly File[], onProgress: (fractions: number[]) => void): Promise<UploadAnswer> {
  const form = new FormData();
  for (const file of files) form.append('files', file, uploadName(file));
  const url: keyof paths = '/api/v1/ingestion/{dataset_id}/data_files/{transaction_id}';
  return postForm(url.replace('{dataset_id}', encodeURIComponent(datasetId)).replace('{transaction_id}', String(transactionId)), form, (loaded) =>
    onProgress(perFileProgress(files, loaded)),
  );
}

export type LabelsFrom = 'folder' | 'csv' | 'coco';

/** Indexes what the transaction uploaded (an INGESTION task), labelled from the folders or from `labelsFile` when given. */
export async function processFiles(datasetId: string, transactionId: number, labelsFrom: LabelsFrom | undefined, labelsFile: File | null): Promise<string> {
  // A labels file goes with process_files, when every file it names is uploaded (the API matches its rows then).
  const labelsPart = labelsFile && {
    body: {},
    bodySerializer: () => {
      const form = new FormData();
      form.append('labels', labelsFile);
      return form;
    },
  };
  return unwrap(
    await api.POST('/api/v1/ingestion/{dataset_id}/process_files/{transaction_id}', {
      params: { path: { dataset_id: datasetId, transaction_id: transactionId }, query: labelsFrom ? { labels_from: labelsFrom } : {} },
      ...labelsPart,
    }),
  ).task_id;
}
