import { faultMatrix } from '../../support/faultMatrix';

/** Longer than the 20 s and 30 s heartbeat timeouts of ingestion and embedding: Temporal gives up on attempts the frozen worker holds. */
const FROZEN_MS = 35_000;

// The worker SIGSTOPped with every task type under way, then thawed (SIGCONT): late results of timed-out attempts must not duplicate anything.
faultMatrix({
  name: 'worker frozen (SIGSTOP) mid-task, then thawed',
  ownPostgres: false,
  async injectAndHeal() {
    // The worker is frozen already (the matrix froze it once every task was under way); it is thawed on return.
    await new Promise((resolve) => setTimeout(resolve, FROZEN_MS));
  },
  ends: 'COMPLETED',
  settleMs: 600_000,
});
