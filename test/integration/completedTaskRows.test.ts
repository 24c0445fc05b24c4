import { createDatasetLifecycleActivities } from '../../activities/datasetLifecycle';
import { createProgressReporter } from '../../services/taskProgress';
import { createReadyDataset, waitForTask } from '../support/datasets';
import { eventually, photo } from '../support/media';
import { startTestStack, type TestApi } from '../support/testStack';

interface TaskRow {
  task_id: string;
  status: string;
  status_message: string;
  progress_percentage: number;
  end_time: string | null;
}

/**
 * A task whose workflow COMPLETED stays COMPLETED: a late attempt of a timed-out activity (a frozen worker
 * thawed after Temporal gave its attempt to another) writes no RUNNING or progress over it, and a row that
 * reads active while its workflow completed is read back COMPLETED by the task list (the fault matrix once
 * saw a task RUNNING whose workflow had COMPLETED).
 */
describe('the row of a completed task', () => {
  let api: TestApi;
  let datasetId: string;
  let completed: TaskRow;

  beforeAll(async () => {
    api = await startTestStack();
    datasetId = await createReadyDataset(api, 'completed rows', [photo('rocket'), photo('coffee')]);
    completed = await waitForTask(api, datasetId, ['COMPLETED']);
  }, 180_000);
  afterAll(async () => {
    await api?.close();
  });

  const listed = async (): Promise<TaskRow> => (await api.request.get('/api/v1/tasks').query({ dataset_id: datasetId }).expect(200)).body.tasks[0];
  const datasetOf = async () => (await api.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body as { status_new: string; progress: number };

  it('takes no RUNNING or progress from a late attempt of an activity', async () => {
    const ref = { taskId: completed.task_id, datasetId };
    const lifecycle = createDatasetLifecycleActivities({ db: api.deps.db, encoder: { modelId: 'late', dim: 4 } as never });
    await lifecycle.beginTask({ ...ref, message: 'A late attempt starting' });
    await createProgressReporter(api.deps.db, ref, 'analyze', 'A late attempt clustering')(1, 2, true);

    const after = await listed();
    expect(after).toMatchObject({ task_id: completed.task_id, status: 'COMPLETED', status_message: completed.status_message, progress_percentage: 100 });
    expect(after.end_time).toBe(completed.end_time);
    expect(await datasetOf()).toMatchObject({ status_new: 'READY', progress: 100 });
  });

  it('reads back COMPLETED when it reads RUNNING while its workflow completed', async () => {
    // The row is COMPLETED in the commit's transaction; the workflow completes once that activity returns.
    const handle = api.deps.temporal.workflow.getHandle(completed.task_id);
    await eventually(async () => (await handle.describe()).status.name, (status) => status === 'COMPLETED', 30_000, 'the workflow completed');
    // As a late write landed before the guard above: only the row changed, the dataset is READY.
    await api.deps.db('tasks').where({ task_id: completed.task_id }).update({ status: 'RUNNING', status_message: 'A late attempt starting', end_time: null, progress_percentage: 40 });

    const repaired = await listed();
    expect(repaired).toMatchObject({ task_id: completed.task_id, status: 'COMPLETED', progress_percentage: 100 });
    expect(repaired.status_message).toMatch(/workflow completed/);
    expect(repaired.end_time).not.toBeNull();
    expect(await datasetOf()).toMatchObject({ status_new: 'READY' });
  });
});
