import { ConfigError, loadConfig, type Config } from './config';
import { createLogger, type Logger } from './logger';

// A signal can arrive twice at once (Ctrl-C reaches the whole process group and the launcher forwards it).
const DUPLICATE_SIGNAL_WINDOW_MS = 2000;

/**
 * Entry-point harness for the api and worker processes: validated config (one clear line when it
 * is wrong), then a clean stop on SIGINT/SIGTERM; a later second signal forces the exit.
 */
export function runMain(name: string, start: (config: Config, logger: Logger) => Promise<() => Promise<void>>): void {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const logger = createLogger(name, config.logLevel, config.logFormat);
  let stop: (() => Promise<void>) | undefined;
  let stoppingSince: number | undefined;
  const shutdown = (signal: string) => {
    if (stoppingSince !== undefined && Date.now() - stoppingSince < DUPLICATE_SIGNAL_WINDOW_MS) return;
    if (stoppingSince !== undefined || !stop) {
      logger.warn({ signal }, 'exiting now');
      process.exit(1);
    }
    stoppingSince = Date.now();
    logger.info({ signal }, 'stopping');
    stop().then(
      () => process.exit(0),
      (error) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  start(config, logger).then(
    (stopFn) => {
      stop = stopFn;
    },
    (error) => {
      logger.fatal({ err: error }, `${name} failed to start`);
      process.exit(1);
    },
  );
}
