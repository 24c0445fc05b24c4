import { headVersionId } from '../support/versions';
import { makeVideo, photo, eventually } from '../support/media';
import { newDatasetWithTransaction, uploadFiles, waitForTask } from '../support/datasets';
import { startTestStack } from '../support/testStack';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

describe('task manager: list, filter, abort and retry DATASET_CREATION', () => {
  let stack: Stack;
  let longVideo: string;

  beforeAll(async () => {
    // One frame every 100 ms of a 10 s video: ingestion takes long enough to abort it midway.
    stack = await startTestStack({ VIDEO_FRAME_INTERVAL_MS: '100', VIDEO_MAX_FRAMES: '100' });
    longVideo = makeVideo(10);
  });
  afterAll(() => stack.close());

  it('aborts a running creation, refuses a second abort, retries it to completion without duplicating media', async () => {
    const { datasetId, transId } = await newDatasetWithTransaction(stack, 'long video');
    await uploadFiles(stack, datasetId, transId, [longVideo, photo('coffee'), photo('rocket')]).expect(202);
    const { task_id: taskId } = (await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202)).body;
    const running = await waitForTask(stack, datasetId, ['RUNNING']);
    // What the Tasks API says the caller can do is what abort and retry then answer.
    expect(running).toMatchObject({ can_abort: true, abort_refusal: null, can_retry: false, retry_refusal: 'Task is RUNNING; only FAILED or ABORTED tasks can be retried' });

    const aborted = await stack.request.post(`/api/v1/tasks/${taskId}/abort`).expect(200);
    expect(aborted.body).toMatchObject({ task_id: taskId, status: 'ABORTED', error_message: 'Aborted by user' });
    expect(aborted.body).toMatchObject({ can_abort: false, abort_refusal: 'Task is ABORTED and cannot be aborted', can_retry: true, retry_refusal: null });
    expect(aborted.body.end_time).not.toBeNull();
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('ERROR');
    expect((await stack.request.post(`/api/v1/tasks/${taskId}/abort`).expect(409)).body.detail).toBe('Task is ABORTED and cannot be aborted');

    const retried = await stack.request.post(`/api/v1/tasks/${taskId}/retry`).expect(200);
    expect(retried.body).toMatchObject({ task_id: taskId, status: 'INITIALIZING', error_message: null, end_time: null });
    const done = await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 180_000);
    expect(done).toMatchObject({ status: 'COMPLETED', can_abort: false, can_retry: false, retry_refusal: 'Task is COMPLETED; only FAILED or ABORTED tasks can be retried' });

    const media = await stack.deps.db('media').where({ version_id: await headVersionId(stack.deps.db, datasetId) });
    expect(media.filter((m) => m.kind !== 'VIDEO_FRAME').map((m) => m.file_name).sort()).toEqual(['coffee.jpg', 'pattern.mp4', 'rocket.jpg']);
    const frames = media.filter((m) => m.kind === 'VIDEO_FRAME');
    expect(frames).toHaveLength(100);
    expect(new Set(frames.map((f) => f.frame_index)).size).toBe(100);
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body).toMatchObject({ status_new: 'READY', n_videos: 1, n_images: 2 });

    expect((await stack.request.post(`/api/v1/tasks/${taskId}/retry`).expect(400)).body.detail).toBe(
      'Task is COMPLETED; only FAILED or ABORTED tasks can be retried',
    );
    expect((await stack.request.post(`/api/v1/tasks/${taskId}/abort`).expect(409)).body.detail).toBe('Task is COMPLETED and cannot be aborted');
  }, 240_000);

  it('answers 404 for an unknown task or dataset and 422 for a malformed id', async () => {
    await stack.request.post('/api/v1/tasks/6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11/abort').expect(404);
    await stack.request.post('/api/v1/tasks/6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11/retry').expect(404);
    await stack.request.post('/api/v1/tasks/not-a-uuid/retry').expect(422);
    expect((await stack.request.get('/api/v1/tasks').query({ dataset_id: '6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11' }).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    await stack.request.get('/api/v1/tasks').query({ dataset_id: 'not-a-uuid' }).expect(422);
  });

  it('lists tasks with every filter, sort order and paging, and the filter options', async () => {
    const made: string[] = [];
    for (const name of ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta']) {
      const { datasetId, transId } = await newDatasetWithTransaction(stack, name);
      await uploadFiles(stack, datasetId, transId, [photo('chelsea')]).expect(202);
      await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202);
      made.push(datasetId);
    }
    for (const datasetId of made) await waitForTask(stack, datasetId, ['COMPLETED']);

    const all = (await stack.request.get('/api/v1/tasks').query({ page_size: 50 }).expect(200)).body;
    expect(all.total).toBe(7);
    expect(all.page).toBe(1);
    expect(all.page_size).toBe(50);
    const starts = all.tasks.map((t: { start_time: string }) => t.start_time);
    expect(starts).toEqual([...starts].sort().reverse());

    const page1 = (await stack.request.get('/api/v1/tasks').query({ page_size: 5, sort_by: 'dataset_name', sort_order: 'asc' }).expect(200)).body;
    const page2 = (await stack.request.get('/api/v1/tasks').query({ page: 2, page_size: 5, sort_by: 'dataset_name', sort_order: 'asc' }).expect(200)).body;
    expect(page1.tasks.map((t: { dataset_name: string }) => t.dataset_name)).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'gamma']);
    expect(page2.tasks.map((t: { dataset_name: string }) => t.dataset_name)).toEqual(['long video', 'zeta']);
    expect(page2.total).toBe(7);

    const byName = (await stack.request.get('/api/v1/tasks').query({ dataset_name: 'gamma' }).expect(200)).body;
    expect(byName.tasks.map((t: { dataset_name: string }) => t.dataset_name)).toEqual(['gamma']);
    const byStatus = (await stack.request.get('/api/v1/tasks').query({ task_status: 'COMPLETED', task_type: 'DATASET_CREATION' }).expect(200)).body;
    expect(byStatus.total).toBe(7);
    expect((await stack.request.get('/api/v1/tasks').query({ task_status: 'FAILED' }).expect(200)).body.total).toBe(0);
    const mine = (await stack.request.get('/api/v1/tasks').query({ created_by: stack.deps.defaultUser.email }).expect(200)).body;
    expect(mine.total).toBe(7);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await stack.request.get('/api/v1/tasks').query({ start_time_from: future }).expect(200)).body.total).toBe(0);
    expect((await stack.request.get('/api/v1/tasks').query({ start_time_to: future }).expect(200)).body.total).toBe(7);

    for (const query of [{ page_size: 4 }, { page_size: 51 }, { page: 0 }, { sort_by: 'size' }, { sort_order: 'up' }, { task_type: 'PAINTING' }, { start_time_from: 'yesterday' }]) {
      const response = await stack.request.get('/api/v1/tasks').query(query).expect(422);
      expect(response.body.detail).toMatch(/^query\./);
    }

    const filters = (await stack.request.get('/api/v1/tasks/filters').expect(200)).body;
    expect(filters.dataset_names).toEqual(['alpha', 'beta', 'delta', 'epsilon', 'gamma', 'long video', 'zeta']);
    expect(filters.dataset_ids).toHaveLength(7);
    expect(filters.task_types).toEqual(['DATASET_CREATION']);
    expect(filters.created_by).toEqual([stack.deps.defaultUser.email]);
  }, 180_000);

  it('repairs a task whose workflow was terminated outside the API', async () => {
    const { datasetId, transId } = await newDatasetWithTransaction(stack, 'terminated');
    await uploadFiles(stack, datasetId, transId, [longVideo]).expect(202);
    const { task_id: taskId } = (await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${transId}`).expect(202)).body;
    await waitForTask(stack, datasetId, ['RUNNING']);
    await stack.deps.temporal.workflow.getHandle(taskId).terminate('operator pressed terminate in the Temporal UI');
    const repaired = await eventually(
      async () => (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId }).expect(200)).body.tasks[0],
      (task) => task.status === 'FAILED',
      30_000,
    );
    expect(repaired.error_message).toBe('The workflow was terminated');
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('ERROR');
  });
});
