import { faultMatrix } from '../../support/faultMatrix';

// Every task's workflow terminated from Temporal (as from its CLI or UI) while under way.
faultMatrix({
  name: 'workflow terminated from Temporal mid-task',
  ownPostgres: false,
  async injectAndHeal(stack) {
    const running: string[] = await stack.api.deps.db('tasks').where({ status: 'RUNNING' }).pluck('task_id');
    await Promise.all(running.map((taskId) => stack.api.deps.temporal.workflow.getHandle(taskId).terminate('fault matrix')));
  },
  ends: 'FAILED',
  // Listing tasks repairs them at once.
  settleMs: 60_000,
});
