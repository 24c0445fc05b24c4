import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/connection';
import { Workspace } from '../../db/models';
import { addDatasetMember, createDataset } from '../../db/repositories/datasets';
import { createUser } from '../../db/repositories/users';
import { eventually } from './media';
import type { TestApi } from './testStack';

/**
 * A READY dataset of owner@example.com (editor, password owner-password) shared with
 * viewer@example.com (viewer, viewer-password), holding one image row with `customMetadata`.
 */
export async function sharedDatasetWithViewer(db: Db, customMetadata?: object): Promise<{ datasetId: string; mediaId: string }> {
  const workspaceId = (await Workspace.query(db).first())!.id;
  const owner = await createUser(db, { email: 'owner@example.com', password: 'owner-password', workspaceId, workspaceRole: 'editor' });
  const viewer = await createUser(db, { email: 'viewer@example.com', password: 'viewer-password', workspaceId, workspaceRole: 'viewer' });
  const dataset = await createDataset(db, { name: 'shared', ownerId: owner.id, workspaceId, status: 'READY' });
  const mediaId = randomUUID();
  await db('media').insert({
    id: mediaId,
    version_id: dataset.head_version_id,
    kind: 'IMAGE',
    batch_id: randomUUID(),
    file_name: 'a.jpg',
    blob_sha256: 'a'.repeat(64),
    custom_metadata: customMetadata ? JSON.stringify(customMetadata) : null,
  });
  await addDatasetMember(db, dataset.id, viewer.id, 'viewer');
  return { datasetId: dataset.id, mediaId };
}

/** Terminates a task's workflow and checks that listing tasks repairs it: FAILED, and its dataset READY again. */
export async function expectLostTaskRepaired(api: TestApi, cookie: string, datasetId: string, taskId: string, taskType: string): Promise<void> {
  await api.deps.temporal.workflow.getHandle(taskId).terminate('lost in a test');
  const task = await eventually(
    async () => (await api.request.get('/api/v1/tasks').set('Cookie', cookie).query({ dataset_id: datasetId }).expect(200)).body.tasks[0],
    (found) => found.status === 'FAILED',
  );
  expect(task).toMatchObject({ task_id: taskId, task_type: taskType, error_message: 'The workflow was terminated' });
  expect((await api.request.get(`/api/v1/dataset/${datasetId}`).set('Cookie', cookie).expect(200)).body.status_new).toBe('READY');
}
