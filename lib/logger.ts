import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/** How log lines are written: `auto` is `pretty` on a terminal and `json` otherwise (a pipe, a file, a log collector). */
export type LogFormat = 'auto' | 'pretty' | 'json';

/** Whether `format` writes readable lines, given whether stdout is a terminal. */
export function writesPretty(format: LogFormat, stdoutIsTty: boolean): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTty);
}

/**
 * A logger on stdout; `name` tells which process wrote each event. JSON: one object a line, for
 * machines. Pretty (pino-pretty, in this thread, so nothing is lost on exit): time, level, process
 * and message on one line, the event's fields after it.
 */
export function createLogger(name: string, level: string, format: LogFormat = 'json'): Logger {
  const options = { name, level, base: { process: name }, timestamp: pino.stdTimeFunctions.isoTime };
  if (!writesPretty(format, process.stdout.isTTY === true)) return pino(options);
  return pino(options, pretty({ sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name,process', messageFormat: '[{process}] {msg}', hideObject: false }));
}
