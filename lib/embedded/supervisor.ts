/** How a process ended: its exit code, or the signal that killed it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** One run of a supervised service: resolves `exited` when it ends, for whatever reason. */
export interface Running {
  pid?: number;
  exited: Promise<ExitStatus>;
  /** Stops it cleanly; resolves once it has exited. */
  stop(): Promise<void>;
}

export interface Backoff {
  initialMs: number;
  maxMs: number;
  /** A run that lasted this long was healthy: the next crash waits `initialMs` again. */
  resetAfterMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, maxMs: 15_000, resetAfterMs: 60_000 };

export interface Supervisor<T extends Running> {
  /** The run serving now (the last one started, possibly exited while a restart waits). */
  current(): T;
  /** Stops restarting, then stops the current run (after a restart under way has finished). */
  stop(): Promise<void>;
}

export function describeExit({ code, signal }: ExitStatus): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}

/**
 * Starts `start()` and restarts it whenever it exits unexpectedly, waiting `initialMs` doubling up to
 * `maxMs` between attempts (a failed start counts as a crash), and says so through `log`. The first
 * start's failure is thrown: a service that cannot start at all is a start-up error, not a crash.
 */
export async function supervise<T extends Running>(options: {
  name: string;
  start: () => Promise<T>;
  log: (line: string) => void;
  backoff?: Backoff;
}): Promise<Supervisor<T>> {
  const { name, start, log } = options;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  let current = await start();
  let startedAt = Date.now();
  let stopping = false;
  let delayMs = backoff.initialMs;
  let wakeUp: (() => void) | undefined;
  let restarting: Promise<void> = Promise.resolve();

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const nextDelay = () => {
    const delay = delayMs;
    delayMs = Math.min(backoff.maxMs, delayMs * 2);
    return delay;
  };

  const watch = async (run: T): Promise<void> => {
    const status = await run.exited;
    if (stopping) return;
    if (Date.now() - startedAt >= backoff.resetAfterMs) delayMs = backoff.initialMs;
    let delay = nextDelay();
    log(`${name} exited unexpectedly (${describeExit(status)}); restarting in ${formatSeconds(delay)}`);
    for (;;) {
      await pause(delay);
      if (stopping) return;
      restarting = (async () => {
        current = await start();
      })();
      try {
        await restarting;
        startedAt = Date.now();
        log(`${name} restarted${current.pid ? ` (pid ${current.pid})` : ''}`);
        void watch(current);
        return;
      } catch (error) {
        delay = nextDelay();
        log(`${name} could not be restarted (${summary(error)}); retrying in ${formatSeconds(delay)}`);
      }
    }
  };
  void watch(current);

  return {
    current: () => current,
    async stop() {
      stopping = true;
      wakeUp?.();
      await restarting.catch(() => undefined);
      await current.stop();
    },
  };
}

function formatSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** The error's first line and, from the process output it quotes, the last fatal line (else the last line). */
function summary(error: unknown): string {
  const lines = (error instanceof Error ? error.message : String(error)).split('\n').map((line) => line.trim()).filter(Boolean);
  if (lines.length <= 1) return lines[0] ?? 'unknown error';
  const output = lines.slice(1);
  const fatal = output.filter((line) => /FATAL|PANIC|ERROR|error/.test(line));
  return `${lines[0]} ${fatal[fatal.length - 1] ?? output[output.length - 1]}`;
}
