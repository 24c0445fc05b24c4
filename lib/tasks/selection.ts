import type { DatasetStatus } from '../datasetTransitions';
import { defineTask, givesBackClaim, type TaskRef } from './defineTask';

const operation = { name: 'select_items', from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY' } as const;

/** Items chosen for labelling by a mix of strategies (issue 52), written as a tag with their scores and reasons in one transaction at the end. */
export const selectionTask = defineTask({
  type: 'SELECTION',
  operation,
  workflow: 'selectionWorkflow',
  /** Reading the pool's vectors, then choosing and one write. */
  stages: { select: [5, 90] },
  // Nothing was tagged: the dataset goes back to where it was, and the chunks of the pool it read are forgotten.
  endsUnfinished: (input: TaskRef & { previousStatus: DatasetStatus }) => [...givesBackClaim(operation)(input), { kind: 'selectionParts', taskId: input.taskId }],
});
