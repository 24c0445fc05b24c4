import type { TestApi } from './testStack';
import { eventually } from './media';

/** Steps 1 and 2 of the spec's creation flow: a new dataset and an upload transaction. */
export async function newDatasetWithTransaction(api: TestApi, name: string): Promise<{ datasetId: string; transId: number }> {
  const created = await api.request.get('/api/v1/ingestion/new_dataset').query({ dataset_name: name }).expect(200);
  const datasetId = created.body.dataset_id as string;
  const transaction = await api.request.get(`/api/v1/ingestion/${datasetId}/data_files`).expect(200);
  return { datasetId, transId: transaction.body.trans_id };
}

export function uploadFiles(api: TestApi, datasetId: string, transId: number, files: string[], field = 'files') {
  const request = api.request.post(`/api/v1/ingestion/${datasetId}/data_files/${transId}`);
  for (const file of files) request.attach(field, file);
  return request;
}

/** Polls /api/v1/tasks (as a client would) until the dataset's newest task reaches one of `statuses`. */
export function waitForTask(api: TestApi, datasetId: string, statuses: string[], timeoutMs = 120_000) {
  return eventually(
    async () => (await api.request.get('/api/v1/tasks').query({ dataset_id: datasetId }).expect(200)).body.tasks[0],
    (task) => Boolean(task) && statuses.includes(task.status),
    timeoutMs,
    `task of ${datasetId} in ${statuses.join('/')}`,
  );
}
