import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { Workspace } from '../../db/models';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { startWorkers } from '../../workers/main';
import { createDataset } from '../../db/repositories/datasets';
import { newDatasetWithTransaction, uploadFiles } from '../support/datasets';
import { makeZip } from '../support/archives';
import { eventually, photo } from '../support/media';
import { startTestApi, type TestApi } from '../support/testStack';

interface Task {
  task_id: string;
  task_type: string;
  status: string;
  dataset_id: string;
  error_message: string | null;
}

/**
 * With no worker, each task's workflow is started and then terminated, as from the Temporal CLI: the
 * task list repairs the task to FAILED and every dataset the task held ends where a failed run leaves
 * it, so a user can act on it again (docs/states.md).
 */
describe('a lost workflow leaves no dataset held', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  async function readyDataset(name: string, status: 'READY' | 'PARTIAL INDEX' = 'READY'): Promise<string> {
    const { db } = api.deps;
    const owner = await db('users').first();
    const workspaceId = (await Workspace.query(db).first())!.id;
    const dataset = await createDataset(db, { name, ownerId: owner.id, workspaceId, status, embeddingConfig: { model: 'test', dim: 4 } });
    await db('media').insert({ id: randomUUID(), version_id: dataset.head_version_id, kind: 'IMAGE', batch_id: randomUUID(), file_name: 'a.jpg', blob_sha256: 'a'.repeat(64) });
    return dataset.id;
  }
  const statusOf = async (datasetId: string) => (await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new as string;
  const newestTask = async (taskType: string) => (await api.request.get('/api/v1/tasks').query({ task_type: taskType }).expect(200)).body.tasks[0] as Task;

  async function terminateAndRepair(taskType: string): Promise<Task> {
    const task = await newestTask(taskType);
    await api.deps.temporal.workflow.getHandle(task.task_id).terminate('lost in a test');
    return eventually(() => newestTask(taskType), (found) => found.task_id === task.task_id && found.status === 'FAILED');
  }

  it('MEDIA_ADDITION with nothing received yet: the dataset back to READY, and media can be added again', async () => {
    const datasetId = await readyDataset('add to me');
    const zip = makeZip(path.join(os.tmpdir(), `lost-${randomUUID()}.zip`), { 'a.jpg': photo('rocket') });
    await api.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('archive', zip).expect(202);
    expect(await statusOf(datasetId)).toBe('READ ONLY');
    expect(await terminateAndRepair('MEDIA_ADDITION')).toMatchObject({ dataset_id: datasetId, error_message: 'The workflow was terminated' });
    expect(await statusOf(datasetId)).toBe('READY');
    await api.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('archive', zip).expect(202);
  });

  it('REINDEX: the dataset back to PARTIAL INDEX, and it can be reindexed again', async () => {
    const datasetId = await readyDataset('reindex me', 'PARTIAL INDEX');
    await api.request.post(`/api/v1/dataset/${datasetId}/reindex`).expect(202);
    expect(await statusOf(datasetId)).toBe('READ ONLY');
    expect(await terminateAndRepair('REINDEX')).toMatchObject({ dataset_id: datasetId, error_message: 'The workflow was terminated' });
    expect(await statusOf(datasetId)).toBe('PARTIAL INDEX');
    await api.request.post(`/api/v1/dataset/${datasetId}/reindex`).expect(202);
  });

  it('EXPORT: the export FAILED with the reason, the dataset untouched', async () => {
    const datasetId = await readyDataset('export me');
    const { id: taskId } = (await api.request.get(`/api/v1/dataset/${datasetId}/export_context_async`).query({ file_name: 'lost', export_format: 'json' }).expect(200)).body;
    await api.deps.temporal.workflow.getHandle(taskId).terminate('lost in a test');
    const status = await eventually(
      async () => (await api.request.get(`/api/v1/dataset/${datasetId}/export_status`).query({ export_task_id: taskId }).expect(200)).body,
      (found) => found.status === 'FAILED',
    );
    expect(status.status).toBe('FAILED');
    expect(await statusOf(datasetId)).toBe('READY');
  });

  it('ENRICHMENT: the source back to READY, the copy ERROR with the reason, and the source can be enriched again', async () => {
    const source = await readyDataset('enrich me');
    const body = { enrichment_models: { IMAGE_TAGGING: 'imagenet-tagger@1' } };
    const { dataset_id: copy } = (await api.request.post(`/api/v1/dataset/${source}/enrich_dataset`).send(body).expect(200)).body;
    expect([await statusOf(source), await statusOf(copy)]).toEqual(['READ ONLY', 'INDEXING']);
    const task = await terminateAndRepair('ENRICHMENT');
    expect(task).toMatchObject({ dataset_id: copy, error_message: 'The workflow was terminated' });
    expect([await statusOf(source), await statusOf(copy)]).toEqual(['READY', 'ERROR']);
    await api.request.post(`/api/v1/dataset/${source}/enrich_dataset`).send(body).expect(200);
  });

  it('SNAPSHOT_RESTORE: the dataset back to READY with its snapshot not restoring, and it can be restored again', async () => {
    const datasetId = await readyDataset('restore me');
    const snapshot = (await api.request.post(`/api/v1/dataset/${datasetId}/snapshot`).send({ name: 'before' }).expect(200)).body;
    await api.request.post(`/api/v1/dataset/${datasetId}/snapshot/${snapshot.snapshot_id}/restore`).expect(202);
    expect(await statusOf(datasetId)).toBe('READ ONLY');
    expect(await terminateAndRepair('SNAPSHOT_RESTORE')).toMatchObject({ dataset_id: datasetId, error_message: 'The workflow was terminated' });
    expect(await statusOf(datasetId)).toBe('READY');
    const listed = (await api.request.get(`/api/v1/dataset/${datasetId}/snapshot`).expect(200)).body as Array<{ snapshot_id: string; is_restoring: boolean }>;
    expect(listed.find((found) => found.snapshot_id === snapshot.snapshot_id)?.is_restoring).toBe(false);
    await api.request.post(`/api/v1/dataset/${datasetId}/snapshot/${snapshot.snapshot_id}/restore`).expect(202);
  });

  it('SNAPSHOT_CLONE: the clone ERROR with the reason, the source untouched', async () => {
    const datasetId = await readyDataset('clone me');
    const snapshot = (await api.request.post(`/api/v1/dataset/${datasetId}/snapshot`).send({ name: 'to clone' }).expect(200)).body;
    await api.request.post(`/api/v1/dataset/${datasetId}/snapshot/${snapshot.snapshot_id}/clone`).expect(202);
    const task = await terminateAndRepair('SNAPSHOT_CLONE');
    expect(task.dataset_id).not.toBe(datasetId);
    expect(await statusOf(task.dataset_id)).toBe('ERROR');
    expect(await statusOf(datasetId)).toBe('READY');
  });

  it('abort answers within its deadline when no worker acts on it: the task ABORTED, the dataset ERROR, as the workflow would leave them', async () => {
    const { datasetId, transId } = await newDatasetWithTransaction(api, 'abort me');
    await uploadFiles(api, datasetId, transId, [photo('chelsea')]).expect(202);
    const { task_id: taskId } = (await api.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202)).body;
    const started = Date.now();
    const aborted = (await api.request.post(`/api/v1/tasks/${taskId}/abort`).expect(200)).body;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(aborted).toMatchObject({ task_id: taskId, status: 'ABORTED', error_message: 'Aborted by user (its workflow stops when a worker takes it again)' });
    expect(await statusOf(datasetId)).toBe('ERROR');

    // A worker that comes back finds the workflow cancelled and leaves the task and the dataset as they are.
    const { stop } = await startWorkers(loadConfig(api.env), createLogger('test-worker', 'silent'));
    try {
      await expect(api.deps.temporal.workflow.getHandle(taskId).result()).rejects.toThrow(WorkflowFailedError);
      expect((await api.deps.temporal.workflow.getHandle(taskId).describe()).status.name).toBe('CANCELLED');
      expect((await newestTask('DATASET_CREATION')).status).toBe('ABORTED');
      expect(await statusOf(datasetId)).toBe('ERROR');
    } finally {
      await stop();
    }
  }, 120_000);
});
