import { faultMatrix } from '../../support/faultMatrix';

// Every task's workflow terminated from Temporal (as from its CLI or UI) while under way.
faultMatrix({
  name: 'workflow terminated from Temporal mid-task',
  ownPostgres: false,
  async injectAndHeal(stack, taskIds) {
    await Promise.all(
      taskIds.map(async (taskId) => {
        try {
          await stack.api.deps.temporal.workflow.getHandle(taskId).terminate('fault matrix');
        } catch (error) {
          const task = await stack.api.deps.db('tasks').where({ task_id: taskId }).first('task_type', 'status', 'status_message', 'phase');
          const description = await stack.api.deps.temporal.workflow.getHandle(taskId).describe();
          throw new Error(`could not terminate ${JSON.stringify(task)} (workflow ${description.status.name}): ${(error as Error).message}`);
        }
      }),
    );
  },
  ends: 'FAILED',
  // Listing tasks repairs them at once.
  settleMs: 60_000,
});
