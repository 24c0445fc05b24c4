// Every workflow type of the service is exported from here; the worker bundles this module.
export { customMetadataWorkflow } from './customMetadata';
export { datasetCreationWorkflow } from './datasetCreation';
export { encodeQueryImageWorkflow } from './encodeQueryImage';
export { enrichmentWorkflow } from './enrichment';
export { exportWorkflow } from './export';
export { labelPropagationWorkflow } from './labelPropagation';
export { labelQualityWorkflow } from './labelQuality';
export { mediaAdditionWorkflow } from './mediaAddition';
export { mediaChunksWorkflow } from './mediaChunks';
export { reindexWorkflow } from './reindex';
export { snapshotCloneWorkflow } from './snapshotClone';
export { snapshotRestoreWorkflow } from './snapshotRestore';
export { storageCollectionWorkflow } from './storageCollection';
