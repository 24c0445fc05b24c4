import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { inferenceQueueOf, type BatchSource, type MediaAdditionInput } from '../../workflows/contracts';
import {
  REANALYSIS_STEPS,
  cancellationSeen,
  chunkFile,
  failsWith,
  heldUntilReleased,
  labelCheckCall,
  mapLayoutsRecorded,
  mockActivities,
  newTaskId,
  outcomeOf,
  runsUntilCancelled,
  workflowTestbed,
  type ActivityName,
  type Behaviour,
} from '../support/workflowTesting';

/** The steps of a batch from an archive with auto_reindex: every step the workflow has. */
const reindexingSteps: ActivityName[] = [
  'beginTask',
  'collectBatchMedia',
  'planMediaChunks',
  'ingestChunk',
  'embedChunk',
  'embedDatasetMedia',
  'enrichDatasetMedia',
  'embedCaptions',
  'indexBatch',
  'planLabelChunks',
  'evaluateViews',
  'beginReindex',
  ...REANALYSIS_STEPS,
  'commitReindex',
];
const all: ActivityName[] = [...reindexingSteps, 'checkLabelChunk', 'aggregateLabelQuality', 'completeMediaAddition', 'endTaskUnfinished', 'recordMapLayoutTask'];
const collected = { media: 3, skipped: 1, missing: ['gone.jpg'] };

const testbed = workflowTestbed();

function newInput(source: BatchSource, autoReindex: boolean): MediaAdditionInput {
  return {
    taskId: newTaskId(),
    datasetId: newTaskId(),
    transactionId: 11,
    batchId: newTaskId(),
    source,
    autoReindex,
    previousStatus: 'PARTIAL INDEX',
    hints: { batchNImages: 10 },
  };
}

const archive: BatchSource = { kind: 'archive', blobSha256: 'ab'.repeat(32), fileName: 'photos.zip' };

function start(taskQueue: string, input: MediaAdditionInput) {
  return testbed.start('mediaAdditionWorkflow', taskQueue, input.taskId, input);
}

describe('mediaAdditionWorkflow', () => {
  it('indexes uploaded files into the existing clusters and leaves the re-clustering for later without auto_reindex', async () => {
    const input = newInput({ kind: 'upload' }, false);
    const mocks = mockActivities(all);
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect(await outcomeOf(await start(taskQueue, input))).toEqual({ status: 'COMPLETED', failure: undefined });
      const ref = { taskId: input.taskId, datasetId: input.datasetId };
      const chunk = { after: null, last: chunkFile(0), ordinal: 0 };
      const step = { ...ref, batchId: input.batchId, selection: { transactionId: input.transactionId }, chunk, chunks: 1 };
      expect(mocks.calls).toEqual([
        { name: 'beginTask', input: { ...ref, message: expect.any(String) }, taskQueue },
        { name: 'planMediaChunks', input: { selection: { transactionId: input.transactionId }, after: null, chunksDone: 0 }, taskQueue },
        { name: 'ingestChunk', input: step, taskQueue },
        { name: 'embedChunk', input: step, taskQueue: inferenceQueueOf(taskQueue) },
        { name: 'embedDatasetMedia', input: ref, taskQueue: inferenceQueueOf(taskQueue) },
        { name: 'enrichDatasetMedia', input: ref, taskQueue: inferenceQueueOf(taskQueue) },
        { name: 'embedCaptions', input: ref, taskQueue: inferenceQueueOf(taskQueue) },
        { name: 'indexBatch', input: { ...ref, batchId: input.batchId }, taskQueue },
        labelCheckCall(ref, { transactionId: input.transactionId }, taskQueue),
        { name: 'evaluateViews', input: { ...ref, batchId: input.batchId }, taskQueue },
        { name: 'completeMediaAddition', input: { ...ref, batchId: input.batchId, missing: [] }, taskQueue },
      ]);
    });
  });

  it('collects a batch from its source first and reports the files it could not find', async () => {
    const input = newInput(archive, false);
    const mocks = mockActivities(all, { collectBatchMedia: () => collected });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect((await outcomeOf(await start(taskQueue, input))).status).toBe('COMPLETED');
    });
    expect(mocks.names()).toEqual([...reindexingSteps.slice(0, reindexingSteps.indexOf('evaluateViews') + 1), 'completeMediaAddition']);
    expect(mocks.inputsOf('collectBatchMedia')).toEqual([input]);
    expect(mocks.inputsOf('completeMediaAddition')).toEqual([
      { taskId: input.taskId, datasetId: input.datasetId, batchId: input.batchId, missing: ['gone.jpg'] },
    ]);
  });

  it('checks the labels its folders gave (labels_from=folder) in chunks before the saved views see the batch', async () => {
    const input = newInput(archive, false);
    const ref = { taskId: input.taskId, datasetId: input.datasetId };
    const plan = {
      ...ref,
      versionId: 'version-1',
      collection: 'dataset_1',
      checkId: 'check-1',
      fields: { label: 'category', split: 'split' },
      stage: 'analyze',
      chunks: [0, 1].map((ordinal) => ({ ordinal, start: ordinal * 8, end: ordinal * 8 + 8 })),
      concurrency: 2,
    };
    const mocks = mockActivities(all, { collectBatchMedia: () => collected, planLabelChunks: () => plan });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect((await outcomeOf(await start(taskQueue, input))).status).toBe('COMPLETED');
    });
    const names = mocks.names();
    expect(names.slice(names.indexOf('indexBatch'))).toEqual(['indexBatch', 'planLabelChunks', 'checkLabelChunk', 'checkLabelChunk', 'aggregateLabelQuality', 'evaluateViews', 'completeMediaAddition']);
    expect(mocks.inputsOf('planLabelChunks')).toEqual([{ ...ref, fields: { transactionId: input.transactionId }, stage: 'analyze' }]);
    const { chunks, concurrency, ...step } = plan;
    expect(concurrency).toBe(2);
    expect(mocks.inputsOf('checkLabelChunk')).toEqual(expect.arrayContaining(chunks.map((chunk) => ({ ...step, chunks: 2, chunk }))));
    expect(mocks.inputsOf('aggregateLabelQuality')).toEqual([{ ...step, chunks: 2 }]);
  });

  it('with auto_reindex re-clusters the whole dataset and commits the reindex instead', async () => {
    const input = newInput(archive, true);
    const mocks = mockActivities(all, { collectBatchMedia: () => collected });
    await testbed.withMocks(mocks, async (taskQueue) => {
      expect((await outcomeOf(await start(taskQueue, input))).status).toBe('COMPLETED');
      await mapLayoutsRecorded(mocks);
    });
    expect(mocks.names()).toEqual([...reindexingSteps, 'recordMapLayoutTask']);
    const ref = { taskId: input.taskId, datasetId: input.datasetId };
    expect(mocks.inputsOf('beginReindex')).toEqual([ref]);
    expect(mocks.inputsOf('planKnnChunks')).toEqual([ref]);
    expect(mocks.inputsOf('commitReindex')).toEqual([ref]);
  });

  it.each(reindexingSteps.slice(0, -1))('an abort while %s runs records the batch as aborted and commits nothing', async (running) => {
    const input = newInput(archive, true);
    const blocked = runsUntilCancelled();
    const mocks = mockActivities(all, { collectBatchMedia: () => collected, [running]: blocked.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await blocked.started;
      await handle.cancel();
      const outcome = await outcomeOf(handle);
      expect(outcome.status).toBe('CANCELLED');
      expect(outcome.failure).toBeInstanceOf(CancelledFailure);
    });
    expect(mocks.names()).toEqual([...reindexingSteps.slice(0, reindexingSteps.indexOf(running) + 1), 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'MEDIA_ADDITION', input, aborted: true, message: 'Aborted by user' }]);
  });

  it.each<[ActivityName, boolean]>([
    ['commitReindex', true],
    ['completeMediaAddition', false],
  ])('an abort once %s has started does not stop it', async (finishing, autoReindex) => {
    const input = newInput({ kind: 'upload' }, autoReindex);
    const held = heldUntilReleased();
    const mocks = mockActivities(all, { [finishing]: held.behaviour });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await start(taskQueue, input);
      await held.started;
      await handle.cancel();
      await cancellationSeen(handle);
      held.release();
      expect(await outcomeOf(handle)).toEqual({ status: 'COMPLETED', failure: undefined });
    });
    expect(mocks.names().filter((name) => name !== 'recordMapLayoutTask').at(-1)).toBe(finishing);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([]);
  });

  it.each(reindexingSteps)('a failure of %s fails the batch with its message and the workflow with MediaAdditionFailed', async (failing) => {
    const input = newInput(archive, true);
    const message = `${failing} broke: bucket gone`;
    const mocks = mockActivities(all, { collectBatchMedia: () => collected, [failing]: failsWith(message) });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const outcome = await outcomeOf(await start(taskQueue, input));
      expect(outcome.status).toBe('FAILED');
      expect(outcome.failure).toBeInstanceOf(ApplicationFailure);
      expect(outcome.failure).toMatchObject({ type: 'MediaAdditionFailed', message, nonRetryable: true });
    });
    expect(mocks.names()).toEqual([...reindexingSteps.slice(0, reindexingSteps.indexOf(failing) + 1), 'endTaskUnfinished']);
    expect(mocks.inputsOf('endTaskUnfinished')).toEqual([{ taskType: 'MEDIA_ADDITION', input, aborted: false, message }]);
  });

  it('runs again under the same workflow id after a failed run (a retry)', async () => {
    const input = newInput({ kind: 'upload' }, false);
    let embedCalls = 0;
    const failOnce: Behaviour = (call) => {
      embedCalls++;
      if (embedCalls === 1) return failsWith('the model file is missing')(call);
    };
    const mocks = mockActivities(all, { embedDatasetMedia: failOnce });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const first = await start(taskQueue, input);
      expect((await outcomeOf(first)).status).toBe('FAILED');
      const retry = await start(taskQueue, input);
      expect(retry.firstExecutionRunId).not.toBe(first.firstExecutionRunId);
      expect((await outcomeOf(retry)).status).toBe('COMPLETED');
    });
    expect(mocks.names()).toEqual([
      'beginTask', 'planMediaChunks', 'ingestChunk', 'embedChunk', 'embedDatasetMedia', 'endTaskUnfinished',
      'beginTask', 'planMediaChunks', 'ingestChunk', 'embedChunk', 'embedDatasetMedia', 'enrichDatasetMedia', 'embedCaptions', 'indexBatch', 'planLabelChunks', 'evaluateViews', 'completeMediaAddition',
    ]);
  });
});
