import { faultMatrix } from '../../support/faultMatrix';

/** How long Postgres stays down while the worker runs on. */
const DOWN_MS = 5_000;

// Postgres stopped (fast shutdown: open transactions roll back) with every task type under way, and started again.
faultMatrix({
  name: 'Postgres restarted mid-task',
  ownPostgres: true,
  async injectAndHeal(stack) {
    await stack.postgres!.stop();
    stack.worker.signal('SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
    await stack.postgres!.start();
  },
  ends: 'COMPLETED',
  settleMs: 600_000,
});
