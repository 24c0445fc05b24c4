import { eventually } from './media';
import type { TestApi } from './testStack';
import { readZip } from './zip';

type Api = Pick<TestApi, 'request'>;

/** Polls export_status as a client does until the export is COMPLETED or FAILED. */
export function exportFinished(api: Api, datasetId: string, taskId: string) {
  return eventually(
    async () => (await api.request.get(`/api/v1/dataset/${datasetId}/export_status`).query({ export_task_id: taskId }).expect(200)).body,
    (status) => ['COMPLETED', 'FAILED'].includes(status.status),
    120_000,
    `export ${taskId}`,
  );
}

/** Downloads what a download_uri points at, as bytes. */
export function downloadExport(api: Api, uri: string) {
  const url = new URL(uri);
  return api.request
    .get(url.pathname + url.search)
    .buffer(true)
    .parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    });
}

/** Exports the whole dataset with `query`, waits for it to complete and reads the downloaded ZIP's entries. */
export async function exportWholeDataset(
  api: Api,
  datasetId: string,
  query: Record<string, string>,
): Promise<{ taskId: string; entries: Map<string, Buffer>; archive: Buffer; status: Record<string, unknown> }> {
  const { id } = (await api.request.get(`/api/v1/dataset/${datasetId}/export_context_async`).query(query).expect(200)).body;
  const status = await exportFinished(api, datasetId, id);
  expect(status).toMatchObject({ status: 'COMPLETED', progress_percentage: 100, error_message: null });
  const response = await downloadExport(api, status.download_uri);
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toBe('application/zip');
  return { taskId: id, entries: await readZip(response.body), archive: response.body, status };
}
