// Every workflow type of the service is exported from here; the worker bundles this module.
export { customMetadataWorkflow } from './customMetadata';
export { datasetCreationWorkflow } from './datasetCreation';
export { encodeQueryImageWorkflow } from './encodeQueryImage';
export { enrichmentWorkflow } from './enrichment';
export { exportWorkflow } from './export';
export { labelPropagationWorkflow } from './labelPropagation';
export { labelQualityWorkflow } from './labelQuality';
export { mapLayoutWorkflow } from './mapLayout';
export { mediaAdditionWorkflow } from './mediaAddition';
export { mediaChunksWorkflow } from './mediaChunks';
export { reindexWorkflow } from './reindex';
export { selectionWorkflow } from './selection';
export { snapshotCloneWorkflow } from './snapshotClone';
export { snapshotRestoreWorkflow } from './snapshotRestore';
export { storageCollectionWorkflow } from './storageCollection';

// Every task module (lib/tasks) names one of the workflows above, whose input carries what the task's end reads.
import type { TaskInput, TaskOf, TaskType } from '../lib/tasks';
import type * as workflows from './index';

type TaskWorkflowInput<T extends TaskType> = Parameters<(typeof workflows)[TaskOf<T>['workflow']]>[0];
type Checked<Table extends Record<TaskType, true>> = Table;
export type TaskWorkflowsChecked = Checked<{ [T in TaskType]: TaskWorkflowInput<T> extends TaskInput<T> ? true : false }>;
