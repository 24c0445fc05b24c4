import { faultMatrix } from '../../support/faultMatrix';

// The worker SIGKILLed with every task type under way; a new worker takes the workflows over.
faultMatrix({
  name: 'worker SIGKILL mid-task',
  ownPostgres: false,
  async injectAndHeal(stack) {
    stack.worker.signal('SIGCONT');
    await stack.worker.kill();
    stack.newWorker();
  },
  ends: 'COMPLETED',
  // An activity the dead worker held is given to the new one after its heartbeat timeout.
  settleMs: 600_000,
});
