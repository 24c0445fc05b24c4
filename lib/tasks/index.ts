import { customMetadataTask } from './customMetadata';
import { datasetCreationTask } from './datasetCreation';
import type { StageRange } from './defineTask';
import { enrichmentTask } from './enrichment';
import { exportTask } from './export';
import { labelPropagationTask } from './labelPropagation';
import { labelQualityTask } from './labelQuality';
import { mapLayoutTask } from './mapLayout';
import { mediaAdditionTask } from './mediaAddition';
import { reindexTask } from './reindex';
import { selectionTask } from './selection';
import { snapshotCloneTask } from './snapshotClone';
import { snapshotRestoreTask } from './snapshotRestore';

export type { Ending, EndStep, TaskDefinition, TaskRef } from './defineTask';

/**
 * Every task type, one module each (lib/tasks/<type>.ts), in the order the Tasks API's enum and docs/states.md
 * list them. A task type is its module here, its workflow and its service; its name is a row a migration seeds
 * into task_types (test/unit/taskModules.test.ts checks that the three agree).
 */
export const TASKS = [
  datasetCreationTask,
  mediaAdditionTask,
  reindexTask,
  enrichmentTask,
  customMetadataTask,
  snapshotRestoreTask,
  snapshotCloneTask,
  labelPropagationTask,
  labelQualityTask,
  selectionTask,
  exportTask,
  mapLayoutTask,
] as const;

type Tasks = typeof TASKS;
export type AnyTask = Tasks[number];
export type TaskType = AnyTask['type'];
export type TaskOf<T extends TaskType> = Extract<AnyTask, { type: T }>;
/** What a task's workflow input must at least carry: what its unfinished end reads. */
export type TaskInput<T extends TaskType> = Parameters<TaskOf<T>['endsUnfinished']>[0];
/** The dataset operations that start a task. */
export type TaskOperationName = AnyTask['operation']['name'];
/** The workflow types that run a task. */
export type TaskWorkflowName = AnyTask['workflow'];
type StagesOf<D> = D extends { stages: infer S } ? keyof S & string : never;
/** Every progress stage some task reports in. */
export type TaskStage = StagesOf<AnyTask>;

type TypesOf<T extends readonly { type: string }[]> = { readonly [K in keyof T]: T[K] extends { type: infer Name } ? Name : never };
/** The task types as a tuple (z.enum takes it), in the registry's order. */
export const TASK_TYPES = TASKS.map((task) => task.type) as readonly TaskType[] as TypesOf<Tasks>;

const BY_TYPE = new Map<string, AnyTask>(TASKS.map((task) => [task.type, task]));

/** The module of a task type. */
export function taskOf<T extends TaskType>(type: T): TaskOf<T> {
  return BY_TYPE.get(type) as TaskOf<T>;
}

/** The task types whose module says `flag`. */
export function taskTypesWhere(flag: 'abortable' | 'retryable' | 'storesBlobs' | 'holdsBatchSlot' | 'listed'): TaskType[] {
  return TASKS.filter((task) => task[flag]).map((task) => task.type);
}

/** The share of progress of every stage some task reports in (a stage two tasks share means the same share in both). */
export const STAGE_RANGES = Object.assign({}, ...TASKS.map((task) => task.stages)) as Record<TaskStage, StageRange>;
