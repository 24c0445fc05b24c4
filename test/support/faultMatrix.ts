import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TaskType } from '../../lib/datasetStates';
import { prepareCells, statusOf, type PreparedCell, type TaskRow } from './faultCells';
import { startFaultStack, type FaultStack } from './faultStack';
import { eventually } from './media';

/** The statuses a task's datasets may be left in once it ended (docs/states.md: no failure leaves a transitional status). */
const END_STATUSES = ['READY', 'PARTIAL INDEX', 'ERROR'];

/** What a fault kind does, and what every task ends as once healed. */
export interface FaultKind {
  name: string;
  /** Whether the file runs a Postgres of its own (the Postgres faults stop or freeze it). */
  ownPostgres: boolean;
  /**
   * Injects the fault into the stack with every task mid-task, and heals it (new worker, thaw, Postgres
   * back). It is called with the worker frozen (SIGSTOP, see underWay), which is thawed after it returns.
   */
  injectAndHeal(stack: FaultStack, taskIds: string[]): Promise<void>;
  /** COMPLETED: the run rides the fault out. FAILED: the fault ends the run (a terminated workflow), and a retry or a new run completes. */
  ends: 'COMPLETED' | 'FAILED';
  /** How long after healing a task may take to end (its activities' heartbeat timeouts bound it), counted from the heal. */
  settleMs: number;
}

interface CellResult {
  taskType: TaskType;
  statusAtFault: string;
  ended: string;
  afterwards: string;
  seconds: number;
  green: boolean;
}

async function taskRow(stack: FaultStack, taskId: string): Promise<TaskRow | undefined> {
  const { dataset_id, task_type } = await stack.api.deps.db('tasks').where({ task_id: taskId }).first('dataset_id', 'task_type');
  // The task list, as a client reads it (it repairs tasks whose workflow is gone; it lists exports when asked for them by type).
  const { tasks } = (await stack.api.request.get('/api/v1/tasks').query({ dataset_id, task_type, page_size: 50 }).expect(200)).body as { tasks: TaskRow[] };
  return tasks.find((task) => task.task_id === taskId);
}

const taskIds = async (stack: FaultStack): Promise<string[]> => stack.api.deps.db('tasks').pluck('task_id');

/** Waits (bounded) until task `taskId` reads COMPLETED, FAILED or ABORTED. */
function taskEnded(stack: FaultStack, taskId: string, timeoutMs: number): Promise<TaskRow> {
  return eventually(
    async () => (await taskRow(stack, taskId)) ?? ({ status: 'missing' } as TaskRow),
    (task) => ['COMPLETED', 'FAILED', 'ABORTED'].includes(task.status),
    timeoutMs,
    `task ${taskId} ended`,
  );
}

/**
 * The task the last call of `start` created (none of `before`), of the datasets the test expects; not a map layout,
 * which an analysis that ended earlier starts after its commit.
 */
async function newTask(stack: FaultStack, before: string[]): Promise<{ task_id: string; task_type: TaskType }> {
  const rows = await stack.api.deps.db('tasks').whereNotIn('task_id', before).whereNot('task_type', 'MAP_LAYOUT').select('task_id', 'task_type');
  if (rows.length !== 1) throw new Error(`expected one new task, found ${JSON.stringify(rows)}`);
  return rows[0];
}

/** Task types whose runs take seconds here (inference), started first, one by one. */
const SLOW_TYPES: TaskType[] = ['DATASET_CREATION', 'MEDIA_ADDITION', 'REINDEX', 'ENRICHMENT'];
/** Task types whose runs take a fraction of a second on a few photos, started last, together. */
const QUICK_TYPES: TaskType[] = ['SNAPSHOT_RESTORE', 'SNAPSHOT_CLONE', 'CUSTOM_METADATA', 'EXPORT', 'SELECTION'];
/** The quickest: one activity does the whole work; started last, with the worker run in the shortest slices. */
const QUICKEST_TYPES: TaskType[] = ['LABEL_QUALITY', 'LABEL_PROPAGATION'];

/** How long the worker runs between two looks at the tasks while they are being brought under way. */
const SLICE_MS = 10;

/**
 * Brings every task under way: the worker runs in short slices and is frozen (SIGSTOP) while the task
 * rows are read, so a fast task (an export of three photos) cannot start and finish between two looks.
 * Returns with the worker frozen, every task RUNNING (an activity of it ran, and it has not ended)
 * unless one ended within a slice; its status at that moment, by task id.
 */
async function underWay(stack: FaultStack, ids: string[], sliceMs = SLICE_MS): Promise<Map<string, string>> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    stack.worker.signal('SIGSTOP');
    const rows: Array<{ task_id: string; status: string }> = await stack.api.deps.db('tasks').whereIn('task_id', ids).select('task_id', 'status');
    if (rows.every((row) => row.status !== 'INITIALIZING')) return new Map(rows.map((row) => [row.task_id, row.status]));
    if (Date.now() > deadline) throw new Error(`tasks not under way within 2 minutes: ${JSON.stringify(rows)}`);
    stack.worker.signal('SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, sliceMs));
  }
}

/**
 * One fault kind over every task type: one stack, datasets prepared with a worker running, one task of
 * every type started in three waves, the fault injected into each wave once its tasks are under way
 * (their rows RUNNING: an activity ran and they have not ended), then healed, and each task type a cell: its task ends
 * within `settleMs`, its datasets in a valid status, a failure says why, retry works where the task
 * says it may (else the operation starts again), and the counts are the expected ones.
 */
export function faultMatrix(kind: FaultKind): void {
  describe(`fault matrix: ${kind.name}`, () => {
    let stack: FaultStack;
    let cells: PreparedCell[];
    const started = new Map<TaskType, { taskId: string; statusAtFault: string; healedAt: number }>();
    const results: CellResult[] = [];
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'faults-'));
    const fileStarted = Date.now();

    beforeAll(async () => {
      stack = await startFaultStack({ ownPostgres: kind.ownPostgres });
      cells = await prepareCells(stack.api, scratch);
      // Three waves, each hit by the fault once all its tasks are under way: the slow task types (inference)
      // started one at a time, each brought under way before the next; then the quick ones together, then the
      // quickest (one activity does their whole work) with the worker run in the shortest slices. A task of
      // a fraction of a second would have ended before the slow ones were all under way.
      const startTasks = async (types: TaskType[], sliceMs: number) => {
        const before = await taskIds(stack);
        await Promise.all(types.map((taskType) => cells.find((cell) => cell.taskType === taskType)!.start()));
        // Not a map layout either, which an analysis that ended earlier starts after its commit (as newTask says).
        const rows: Array<{ task_id: string; task_type: TaskType }> = await stack.api.deps.db('tasks').whereNotIn('task_id', before).whereNot('task_type', 'MAP_LAYOUT').select('task_id', 'task_type');
        expect(rows.map((row) => row.task_type).sort()).toEqual([...types].sort());
        for (const row of rows) started.set(row.task_type, { taskId: row.task_id, statusAtFault: '', healedAt: 0 });
        return underWay(stack, rows.map((row) => row.task_id), sliceMs);
      };
      const wave = async (types: TaskType[], one: boolean, sliceMs = SLICE_MS) => {
        if (one) for (const type of types) await startTasks([type], sliceMs);
        else await startTasks(types, sliceMs);
        const entries = () => types.map((type) => started.get(type)!);
        let statuses = await underWay(stack, entries().map((entry) => entry.taskId), sliceMs);
        // A quick task (these leave the same counts however often they run) that ended within a slice is
        // started again, until every task of the wave is under way at one look.
        for (let attempt = 1; !one && attempt < 10; attempt++) {
          const ended = types.filter((type) => statuses.get(started.get(type)!.taskId) !== 'RUNNING');
          if (ended.length === 0) break;
          await startTasks(ended, sliceMs);
          statuses = await underWay(stack, entries().map((entry) => entry.taskId), sliceMs);
        }
        for (const entry of entries()) entry.statusAtFault = statuses.get(entry.taskId)!;
        await kind.injectAndHeal(stack, entries().map((entry) => entry.taskId));
        stack.worker.signal('SIGCONT');
        for (const entry of entries()) entry.healedAt = Date.now();
      };
      await wave(SLOW_TYPES, true);
      await wave(QUICK_TYPES, false);
      await wave(QUICKEST_TYPES, false, 1);
    }, 600_000);

    afterAll(async () => {
      const lines = results.map((r) => `| ${r.taskType} | ${r.statusAtFault} | ${r.ended} | ${r.afterwards} | ${r.seconds} | ${r.green ? 'green' : 'RED'} |`);
      process.stdout.write(
        [`\nfault matrix: ${kind.name}: ${results.filter((r) => r.green).length}/${results.length} green, ${Math.round((Date.now() - fileStarted) / 1000)} s`,
          '| task type | at the fault | ended | afterwards | s after heal | |', '|---|---|---|---|---|---|', ...lines,
          ...(stack?.restarts ?? []).map((how) => `worker restarted: ${how.split('\n')[0]}`), ''].join('\n'),
      );
      await stack?.close();
      fs.rmSync(scratch, { recursive: true, force: true });
    });

    it.each([...SLOW_TYPES, ...QUICK_TYPES, ...QUICKEST_TYPES])(
      '%s: mid-task at the fault, ends in a valid status, loses and duplicates nothing',
      async (taskType) => {
        const cell = cells.find((found) => found.taskType === taskType)!;
        const { taskId, statusAtFault, healedAt } = started.get(taskType)!;
        const result: CellResult = { taskType, statusAtFault, ended: '', afterwards: '', seconds: 0, green: false };
        results.push(result);
        // Under way and not ended when the fault went in: a task that had finished would test nothing.
        expect(statusAtFault).toBe('RUNNING');

        // From the heal, not from this cell's start: the tasks settle together, so a matrix whose tasks never end
        // fails within one settleMs instead of one per cell (ten of them: longer than CI allows).
        const task = await taskEnded(stack, taskId, Math.max(1_000, healedAt + kind.settleMs - Date.now()));
        result.ended = task.status;
        result.seconds = Math.round((Date.now() - healedAt) / 1000);
        for (const datasetId of new Set([...cell.held, task.dataset_id])) {
          const dataset = await statusOf(stack.api, datasetId);
          expect(END_STATUSES).toContain(dataset.status_new);
          if (dataset.status_new === 'ERROR') expect(dataset.error_message).toBeTruthy();
        }
        // A terminated task may end COMPLETED too: frozen inside its last activity, which went on after the heal and
        // committed the whole work before any read found the workflow gone. It is held to the same counts.
        if (kind.ends === 'COMPLETED' || task.status === 'COMPLETED') {
          expect(task).toMatchObject({ status: 'COMPLETED' });
          await cell.expectCompleted(task);
          result.afterwards = 'counts as expected';
        } else {
          expect(task).toMatchObject({ status: 'FAILED', error_message: 'The workflow was terminated' });
          const before = await taskIds(stack);
          if (task.can_retry) {
            await stack.api.request.post(`/api/v1/tasks/${taskId}/retry`).expect(200);
            const retried = await taskEnded(stack, taskId, 120_000);
            expect(retried.status).toBe('COMPLETED');
            await cell.expectCompleted(retried);
            result.afterwards = 'retried: counts as expected';
          } else {
            await stack.api.request.post(`/api/v1/tasks/${taskId}/retry`).expect(400);
            await cell.again();
            const again = await taskEnded(stack, (await newTask(stack, before)).task_id, 120_000);
            expect(again.status).toBe('COMPLETED');
            await cell.expectCompleted(again);
            result.afterwards = `${again.task_type} again: counts as expected`;
          }
        }
        result.green = true;
      },
      900_000,
    );
  });
}
