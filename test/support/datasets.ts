import type { TestApi } from './testStack';

/** What these helpers need of an API: an in-process TestApi or the launcher's API over HTTP. */
type Api = Pick<TestApi, 'request'>;
import { eventually } from './media';
import { stuckTaskReport } from './stuckTasks';

/** Steps 1 and 2 of the spec's creation flow: a new dataset and an upload transaction. */
export async function newDatasetWithTransaction(api: Api, name: string): Promise<{ datasetId: string; transId: number }> {
  const created = await api.request.get('/api/v1/ingestion/new_dataset').query({ dataset_name: name }).expect(200);
  const datasetId = created.body.dataset_id as string;
  const transaction = await api.request.get(`/api/v1/ingestion/${datasetId}/data_files`).expect(200);
  return { datasetId, transId: transaction.body.trans_id };
}

export function uploadFiles(api: Api, datasetId: string, transId: number, files: string[], field = 'files') {
  const request = api.request.post(`/api/v1/ingestion/${datasetId}/data_files/${transId}`);
  for (const file of files) request.attach(field, file);
  return request;
}

/**
 * Polls /api/v1/tasks (as a client would) until the dataset's newest task reaches one of `statuses`.
 * A 503 (a dependency too slow right now, with Retry-After) is polled again, as the contract asks of
 * clients; any other status fails at once.
 */
export async function waitForTask(api: Api, datasetId: string, statuses: string[], timeoutMs = 120_000, taskType?: string) {
  return eventually(
    async () => {
      const response = await api.request.get('/api/v1/tasks').query({ dataset_id: datasetId, ...(taskType ? { task_type: taskType } : {}) });
      if (response.status === 503) return { unavailable: response.body.detail as string };
      if (response.status !== 200) throw new Error(`GET /api/v1/tasks answered ${response.status}: ${JSON.stringify(response.body)}`);
      return response.body.tasks[0];
    },
    (task) => Boolean(task) && statuses.includes(task.status),
    timeoutMs,
    `task of ${datasetId} in ${statuses.join('/')}`,
  ).catch(async (error: Error) => {
    if ('deps' in api) error.message += `\n${await stuckTaskReport((api as TestApi).deps, datasetId)}`;
    throw error;
  });
}

/** A dataset indexed by the real DATASET_CREATION workflow from `files`, READY. */
export async function createReadyDataset(api: Api, name: string, files: string[]): Promise<string> {
  const { datasetId, transId } = await newDatasetWithTransaction(api, name);
  await uploadFiles(api, datasetId, transId, files).expect(202);
  await api.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202);
  const task = await waitForTask(api, datasetId, ['COMPLETED', 'FAILED']);
  if (task.status !== 'COMPLETED') throw new Error(`creation of ${name} failed: ${task.error_message}`);
  await waitForMap(api, datasetId);
  return datasetId;
}

/** Polls GET …/map until the map is no longer being laid out (its MAP_LAYOUT task runs after the dataset is READY); the summary then. */
export function waitForMap(api: Api, datasetId: string, timeoutMs = 120_000) {
  return eventually(
    async () => (await api.request.get(`/api/v1/dataset/${datasetId}/map`).expect(200)).body,
    (map) => map.layout_status !== 'laying_out',
    timeoutMs,
    `the map of dataset ${datasetId} laid out`,
  );
}

/** Polls the dataset until its status_new is one of `statuses`. */
export function waitForDatasetStatus(api: Api, datasetId: string, statuses: string[], timeoutMs = 120_000) {
  return eventually(
    async () => (await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body,
    (dataset) => statuses.includes(dataset.status_new),
    timeoutMs,
    `dataset ${datasetId} in ${statuses.join('/')}`,
  );
}

/** The distinct status_new values seen, in order, while polling until the dataset reaches `final`. */
export async function statusesUntil(api: Api, datasetId: string, final: string, timeoutMs = 120_000): Promise<string[]> {
  const seen: string[] = [];
  await eventually(
    async () => {
      const status = (await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new as string;
      if (seen[seen.length - 1] !== status) seen.push(status);
      return status;
    },
    (status) => status === final,
    timeoutMs,
    `dataset ${datasetId} ${final}`,
  );
  return seen;
}
