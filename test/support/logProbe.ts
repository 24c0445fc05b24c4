import { runMain } from '../../lib/runMain';

// A process started the way the api and worker are (runMain), which logs one event and exits: how
// test/unit/logFormat.test.ts sees which format a setting and a terminal choose.
runMain('probe', async (_config, logger) => {
  logger.info({ items: 3 }, 'probe started');
  process.exit(0);
});
