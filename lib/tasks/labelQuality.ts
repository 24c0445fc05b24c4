import { defineTask, givesBackClaim } from './defineTask';

const operation = { name: 'check_labels', from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY' } as const;

/** Mislabels, leakage and the report from the declared label and split fields, written in one transaction at the end. */
export const labelQualityTask = defineTask({
  type: 'LABEL_QUALITY',
  operation,
  workflow: 'labelQualityWorkflow',
  /** The neighbour search, then the scoring and one write. */
  stages: { check_labels: [5, 90] },
  // Nothing was written: the dataset goes back to where it was.
  endsUnfinished: givesBackClaim(operation),
});
