import type { DatasetStatus, Transition } from '../datasetTransitions';

/**
 * A task type, declared once (one module per type in lib/tasks, collected in lib/tasks/index.ts): the dataset
 * operation that starts it, the workflow that runs it, how it ends unfinished, its progress stages, the rules of
 * the Tasks API and what the storage collector waits for. The state machine, progress, the Tasks API, the repair
 * of lost workflows and the storage collector read these declarations; none lists task types itself.
 */

/** Why a task ended without finishing. */
export interface Ending {
  aborted: boolean;
  message: string;
}

/**
 * What a task's unfinished end does besides recording the task FAILED or ABORTED. services/taskTypes.ts runs the
 * steps in one transaction, for the workflow's failure path and for the repair of a lost workflow alike; each is
 * safe to run twice.
 */
export type EndStep =
  /** A dataset moves by a guarded transition (nothing happens where it is elsewhere already). */
  | { kind: 'dataset'; datasetId: string; transition: Transition; errorMessage?: string }
  /** A batch's dataset goes back to `previousStatus`, or to PARTIAL INDEX when something of the batch (or an undecoded file) arrived. */
  | { kind: 'batch'; datasetId: string; batchId: string; previousStatus: DatasetStatus }
  /** A restore that did not happen: its snapshot no longer restoring, the half-made copy dropped after the transaction. */
  | { kind: 'restore'; datasetId: string; snapshotId: string }
  /** A selection's stored chunks of its pool deleted. */
  | { kind: 'selectionParts'; taskId: string };

/** The dataset operation that starts a task: from which statuses, and the status its request claims in one guarded update. */
export interface TaskOperation<Name extends string = string> {
  name: Name;
  from: readonly DatasetStatus[];
  claims?: DatasetStatus;
}

/** A progress stage's share of the task's progress, in percent. */
export type StageRange = readonly [from: number, to: number];

/** How a FAILED or ABORTED run starts again with its stored input, under the same task id. */
export interface RetryRule {
  /** The dataset's guarded move as the task goes back to INITIALIZING. */
  restarts: Transition;
  /** Where the dataset goes when the new run cannot be started. */
  notStarted: Transition;
}

/** What every workflow input carries. */
export interface TaskRef {
  taskId: string;
  datasetId: string;
}

interface Declaration<Type extends string, Workflow extends string, Operation extends string, Stage extends string, Input extends TaskRef> {
  /** The name stored in tasks.task_type (seeded into task_types by a migration) and shown by the Tasks API. */
  type: Type;
  operation: TaskOperation<Operation>;
  /** The workflow type that runs it, exported by workflows/index.ts (which checks that it is, and its input). */
  workflow: Workflow;
  /** The stages its activities report progress in (createProgressReporter), each a share of 0-100. */
  stages?: Record<Stage, StageRange>;
  /** A user may abort it while INITIALIZING or RUNNING (never in its commit phase). */
  abortable?: boolean;
  /** A FAILED or ABORTED run may be started again with its stored input: how its dataset moves then. */
  retry?: RetryRule;
  /**
   * It stores blobs before the rows naming them (or reads a blob only its input names), so it becomes active
   * under the blob release lock and the storage collector releases no blob while it runs.
   */
  storesBlobs?: boolean;
  /** It holds the dataset's add_media/reindex slot: at most one task of such types runs per dataset. */
  holdsBatchSlot?: boolean;
  /** GET /tasks lists it without a task_type filter (the spec follows exports through export_status instead). */
  listed?: boolean;
  /** How it ends FAILED or ABORTED, from its workflow input: where its datasets go. */
  endsUnfinished(input: Input, ending: Ending): EndStep[];
}

export type TaskDefinition<
  Type extends string = string,
  Workflow extends string = string,
  Operation extends string = string,
  Stage extends string = string,
  Input extends TaskRef = never,
> = Required<Omit<Declaration<Type, Workflow, Operation, Stage, Input>, 'retry'>> & { retry: RetryRule | null; retryable: boolean };

/** Declares a task type; the flags it leaves out are false (listed: true), its stages none, no retry. */
export function defineTask<
  const Type extends string,
  const Workflow extends `${string}Workflow`,
  const Operation extends string,
  Input extends TaskRef,
  const Stage extends string = never,
>(declaration: Declaration<Type, Workflow, Operation, Stage, Input>): TaskDefinition<Type, Workflow, Operation, Stage, Input> {
  return {
    stages: {} as Record<Stage, StageRange>,
    abortable: false,
    storesBlobs: false,
    holdsBatchSlot: false,
    listed: true,
    ...declaration,
    retry: declaration.retry ?? null,
    retryable: declaration.retry !== undefined,
  };
}

/** The guarded update that gives a dataset back the status `operation` claimed it from. */
export function claimReleased(operation: { claims: DatasetStatus }, previous: DatasetStatus): Transition {
  return { from: [operation.claims], to: previous };
}

/** The end of a task whose request claimed its dataset: the dataset back where it was claimed from. */
export function givesBackClaim(operation: { claims: DatasetStatus }) {
  return (input: TaskRef & { previousStatus: DatasetStatus }): EndStep[] => [
    { kind: 'dataset', datasetId: input.datasetId, transition: claimReleased(operation, input.previousStatus) },
  ];
}
