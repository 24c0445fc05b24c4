import { collectNowSignal, storageCollectionWorkflowId } from '../../workflows/contracts';
import { eventually } from '../support/media';
import { mockActivities, workflowTestbed, type ActivityName } from '../support/workflowTesting';

const steps: ActivityName[] = [
  'purgeDeletedDatasets',
  'purgeDeletedSnapshots',
  'releaseExpiredExportArchives',
  'releaseBlobs',
  'releaseModelInputs',
  'releaseVectorPoints',
  'releaseVectorSpaces',
  'releaseExportArchives',
  'collectionSettings',
];

const testbed = workflowTestbed();

describe('storageCollectionWorkflow', () => {
  const settings = () => ({ intervalMinutes: 60 });

  it('purges before it releases, then waits for its interval, and runs again at once when signalled', async () => {
    const mocks = mockActivities(steps, { collectionSettings: settings });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await testbed.start('storageCollectionWorkflow', taskQueue, storageCollectionWorkflowId(taskQueue), undefined);
      try {
        await eventually(async () => mocks.calls.length, (n) => n >= steps.length, 20_000, 'the first run');
        expect(mocks.names()).toEqual(steps);
        await handle.signal(collectNowSignal);
        await eventually(async () => mocks.calls.length, (n) => n >= 2 * steps.length, 20_000, 'the signalled run');
        expect(mocks.names()).toEqual([...steps, ...steps]);
      } finally {
        await handle.terminate();
      }
    });
  });

  it('retries a step that fails (an outage) and finishes the run', async () => {
    let failures = 1;
    const mocks = mockActivities(steps, {
      collectionSettings: settings,
      releaseBlobs: () => {
        if (failures-- > 0) throw new Error('object store unreachable');
      },
    });
    await testbed.withMocks(mocks, async (taskQueue) => {
      const handle = await testbed.start('storageCollectionWorkflow', taskQueue, storageCollectionWorkflowId(taskQueue), undefined);
      try {
        await eventually(async () => mocks.names().includes('collectionSettings'), Boolean, 30_000, 'the run to finish');
        expect(mocks.names()).toEqual([...steps.slice(0, 4), 'releaseBlobs', ...steps.slice(4)]);
      } finally {
        await handle.terminate();
      }
    });
  });
});
