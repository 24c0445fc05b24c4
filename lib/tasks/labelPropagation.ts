import { defineTask, givesBackClaim } from './defineTask';

const operation = { name: 'propagate_labels', from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY' } as const;

/** A label on the selected media and on their near neighbours, written in one transaction at the end. */
export const labelPropagationTask = defineTask({
  type: 'LABEL_PROPAGATION',
  operation,
  workflow: 'labelPropagationWorkflow',
  /** The neighbour search, then one write. */
  stages: { propagate: [5, 90] },
  // Nothing was labelled: the dataset goes back to where it was.
  endsUnfinished: givesBackClaim(operation),
});
