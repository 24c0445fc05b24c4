import { defineTask, givesBackClaim } from './defineTask';
import { INDEXING_STAGES } from './indexingStages';

const operation = { name: 'import_metadata', from: ['READY', 'PARTIAL INDEX'], claims: 'READ ONLY' } as const;

/** Captions, labels and fields imported from a file (then the declared labels checked again). */
export const customMetadataTask = defineTask({
  type: 'CUSTOM_METADATA',
  operation,
  workflow: 'customMetadataWorkflow',
  stages: { analyze: INDEXING_STAGES.analyze },
  // It reads the blob its input names.
  storesBlobs: true,
  // Whatever was applied stays (in one transaction or not at all); the dataset goes back to where it was.
  endsUnfinished: givesBackClaim(operation),
});
