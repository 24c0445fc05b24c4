import { faultMatrix } from '../../support/faultMatrix';

/** Longer than the file's query timeout (5 s), so statements fail and activities retry. */
const FROZEN_MS = 10_000;

// Every Postgres process SIGSTOPped with every task type under way, then thawed.
faultMatrix({
  name: 'Postgres frozen (SIGSTOP) mid-task, then thawed',
  ownPostgres: true,
  async injectAndHeal(stack) {
    const processes = stack.postgres!.processes();
    for (const pid of processes) process.kill(pid, 'SIGSTOP');
    stack.worker.signal('SIGCONT');
    try {
      await new Promise((resolve) => setTimeout(resolve, FROZEN_MS));
    } finally {
      for (const pid of processes) process.kill(pid, 'SIGCONT');
    }
  },
  ends: 'COMPLETED',
  settleMs: 600_000,
});
