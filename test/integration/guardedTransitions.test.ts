import { randomUUID } from 'node:crypto';
import { Workspace } from '../../db/models';
import { createDataset } from '../../db/repositories/datasets';
import { createDatasetLifecycleActivities } from '../../activities/datasetLifecycle';
import { startTestApi, type TestApi } from '../support/testStack';

/**
 * A begin or commit step moves its dataset by a guarded status change. One that does not happen
 * (the dataset is elsewhere) fails the step with TransitionRefused, never retried, and writes
 * nothing (the task is not COMPLETED); one that had happened already (a retried step) succeeds.
 */
describe('guarded status changes of a task fail loudly', () => {
  let api: TestApi;
  let lifecycle: ReturnType<typeof createDatasetLifecycleActivities>;

  beforeAll(async () => {
    api = await startTestApi();
    lifecycle = createDatasetLifecycleActivities({ db: api.deps.db, encoder: { modelId: 'test', dim: 4 } as never });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  /** A PARTIAL INDEX dataset whose reindex the API accepted (READ ONLY, task INITIALIZING); no worker runs it. */
  async function claimedReindex(): Promise<{ taskId: string; datasetId: string }> {
    const { db } = api.deps;
    const owner = await db('users').first();
    const workspaceId = (await Workspace.query(db).first())!.id;
    const dataset = await createDataset(db, { name: `reindex ${randomUUID()}`, ownerId: owner.id, workspaceId, status: 'PARTIAL INDEX', embeddingConfig: { model: 'test', dim: 4 } });
    await api.request.post(`/api/v1/dataset/${dataset.id}/reindex`).expect(202);
    const task = (await api.request.get('/api/v1/tasks').query({ dataset_id: dataset.id }).expect(200)).body.tasks[0];
    await api.deps.temporal.workflow.getHandle(task.task_id).terminate('run by hand in this test');
    return { taskId: task.task_id, datasetId: dataset.id };
  }
  const rowsOf = async (ref: { taskId: string; datasetId: string }) => ({
    dataset: (await api.deps.db('datasets').where({ id: ref.datasetId }).first()).status_new,
    task: (await api.deps.db('tasks').where({ task_id: ref.taskId }).first()).status,
  });

  it('a commit from a status the transition does not leave is refused, and nothing is written', async () => {
    const ref = await claimedReindex();
    const before = await rowsOf(ref);
    // READ ONLY: the reindex never began (INDEXING), so it cannot commit to READY.
    await expect(lifecycle.commitReindex(ref)).rejects.toMatchObject({
      name: 'TransitionRefused',
      message: `Dataset ${ref.datasetId} is READ ONLY: it cannot move from INDEXING to READY`,
    });
    expect(await rowsOf(ref)).toEqual(before);
  });

  it('a step run again after its change happened succeeds (a retried activity)', async () => {
    const ref = await claimedReindex();
    await lifecycle.beginReindex(ref);
    await lifecycle.beginReindex(ref);
    await lifecycle.commitReindex(ref);
    await lifecycle.commitReindex(ref);
    expect(await rowsOf(ref)).toEqual({ dataset: 'READY', task: 'COMPLETED' });
  });
});
