import pino, { type Logger } from 'pino';

export type { Logger };

/** One JSON line per event on stdout; `name` tells which process wrote it. */
export function createLogger(name: string, level: string): Logger {
  return pino({ name, level, base: { process: name }, timestamp: pino.stdTimeFunctions.isoTime });
}
