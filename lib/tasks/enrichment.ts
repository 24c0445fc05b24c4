import { TRANSITIONS, type DatasetStatus } from '../datasetTransitions';
import { claimReleased, defineTask, type TaskRef } from './defineTask';

const operation = { name: 'enrich', from: ['READY'], claims: 'READ ONLY' } as const;

/** An enriched copy: a new dataset (INDEXING until the models have run over it); the source is READ ONLY meanwhile. */
export const enrichmentTask = defineTask({
  type: 'ENRICHMENT',
  operation,
  workflow: 'enrichmentWorkflow',
  /** The copy comes before, caption embedding after. */
  stages: { enrich: [20, 90] },
  // The new dataset ERROR with the reason; the source back to the status it had.
  endsUnfinished: (input: TaskRef & { sourceDatasetId: string; sourcePreviousStatus: DatasetStatus }, ending) => [
    { kind: 'dataset', datasetId: input.datasetId, transition: TRANSITIONS.enrichmentFailed, errorMessage: ending.message },
    { kind: 'dataset', datasetId: input.sourceDatasetId, transition: claimReleased(operation, input.sourcePreviousStatus) },
  ],
});
