import type { AppDeps } from '../../api/app';

/**
 * What a task that did not finish in time was doing, for the failure message: its workflow's pending
 * activities (attempt, last heartbeat, last failure) and the database's sessions that are not idle
 * (what each runs or waits for), so that a hang seen once in CI can be found.
 */
export async function stuckTaskReport(deps: Pick<AppDeps, 'db' | 'temporal'>, datasetId: string): Promise<string> {
  const lines: string[] = [];
  try {
    const task = await deps.db('tasks').where({ dataset_id: datasetId }).orderBy('start_time', 'desc').first('task_id');
    const { raw } = await deps.temporal.workflow.getHandle(task.task_id).describe();
    lines.push(`workflow ${task.task_id}: ${raw.workflowExecutionInfo?.status}`);
    for (const activity of raw.pendingActivities ?? []) {
      lines.push(
        `  activity ${activity.activityType?.name} state ${activity.state} attempt ${activity.attempt}` +
          ` last heartbeat ${activity.lastHeartbeatTime?.seconds ?? '-'} last failure ${activity.lastFailure?.message ?? '-'}`,
      );
    }
  } catch (error) {
    lines.push(`workflow: not described (${(error as Error).message})`);
  }
  try {
    const { rows } = await deps.db.raw(
      `SELECT pid, state, wait_event_type, wait_event, now() - xact_start AS in_transaction, pg_blocking_pids(pid) AS blocked_by, left(query, 300) AS query
       FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`,
    );
    for (const row of rows) lines.push(`  session ${JSON.stringify(row)}`);
  } catch (error) {
    lines.push(`sessions: not read (${(error as Error).message})`);
  }
  return lines.join('\n');
}
