import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Env } from '../../lib/config';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedPostgres } from '../../lib/embedded/postgres';
import { projectRoot } from '../../lib/projectRoot';
import { freePort } from './ports';
import { quietTemporalLogs, startTestApi, type TestApi } from './testStack';

const LOG_TAIL_CHARS = 4000;

/** Starts a server again once its stopped or killed predecessor has let go of port and data (bounded). */
export async function restartServer<T>(start: () => Promise<T>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await start();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what} did not come back: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** The processes of a server: the postmaster and every backend it forked. */
export function processTree(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)]).toString().trim().split(/\s+/).map(Number);
  } catch {
    // pgrep exits 1 when there is no child
  }
  return [pid, ...children];
}

/** A worker as `npm run worker` runs it, in a child process the tests signal (node itself runs it, so a signal reaches the worker). */
export interface WorkerProcess {
  pid: number;
  signal(signal: NodeJS.Signals): void;
  /** SIGKILL, and waits until it is gone. */
  kill(): Promise<void>;
  /** A graceful stop (thawed first if frozen). */
  stop(): Promise<void>;
}

/**
 * Spawns the worker, its log in `logFile`. A worker that exits unless the test killed or stopped it calls
 * `exitedByItself` with how it ended and the end of its log.
 */
export function spawnWorker(env: Env, logFile: string, exitedByItself: (how: string) => void): WorkerProcess {
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: projectRoot(),
    env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  let ending = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code, signal) => {
    if (ending) return;
    exitedByItself(`worker ${child.pid} exited by itself (code ${code}, signal ${signal}); the end of its log:\n${fs.readFileSync(logFile, 'utf8').slice(-LOG_TAIL_CHARS)}`);
  });
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    pid: child.pid!,
    signal: (signal) => {
      if (running()) child.kill(signal);
    },
    async kill() {
      ending = true;
      if (running()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      ending = true;
      if (!running()) return;
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The API in process, a worker in a child process, and (optionally) a Postgres of the file's own that the tests may stop and freeze. */
export interface FaultStack {
  api: TestApi;
  worker: WorkerProcess;
  /**
   * How each worker that exited by itself ended: the stack starts another a second later, as `npm start`'s
   * supervisor and the compose file's restart policy do, so its tasks go on; the matrix reports them.
   */
  restarts: string[];
  /** Replaces the worker (the previous one killed or stopped) with a new one. */
  newWorker(): WorkerProcess;
  postgres?: {
    /** Every process of the server, to freeze and thaw. */
    processes(): number[];
    /** A fast shutdown (open transactions roll back). */
    stop(): Promise<void>;
    /** Starts it again on the same data and port. */
    start(): Promise<void>;
  };
  close(): Promise<void>;
}

export async function startFaultStack(options: { ownPostgres: boolean }): Promise<FaultStack> {
  quietTemporalLogs();
  let postgres: EmbeddedPostgres | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-faults-'));
  const env: Env = {
    VIDEO_FRAME_INTERVAL_MS: '500',
    // A frozen or restarted database answers within seconds, so activities fail and are retried instead of hanging;
    // under the frozen database's 10 s, yet above what a connection takes while two matrices load both cores (2 s
    // was not: a matrix's setup got 503s from its own API's connection timeouts in CI).
    DATABASE_CONNECT_TIMEOUT_SECONDS: '5',
    DATABASE_QUERY_TIMEOUT_SECONDS: '5',
    // Room for a connection per task held mid-task (test/support/faultMatrix.ts underWay) and the rest.
    DATABASE_POOL_MAX: '24',
  };
  let startPostgres: (() => Promise<EmbeddedPostgres>) | undefined;
  if (options.ownPostgres) {
    const port = await freePort();
    startPostgres = () => startEmbeddedPostgres({ dataDir, port });
    postgres = await startPostgres();
    env.DATABASE_URL = await ensureDatabase(postgres.url, 'faults');
  }
  const api = await startTestApi(env);
  let workers = 0;
  let closing = false;
  const restarts: string[] = [];
  const startWorker = (): WorkerProcess =>
    spawnWorker(api.env, path.join(dataDir, `worker-${++workers}.log`), (how) => {
      restarts.push(how);
      process.stdout.write(`\n[faults] ${how}\n[faults] starting another worker in 1 s\n`);
      setTimeout(() => {
        if (!closing) worker = startWorker();
      }, 1_000);
    });
  let worker = startWorker();
  const stack: FaultStack = {
    api,
    get worker() {
      return worker;
    },
    restarts,
    newWorker() {
      worker = startWorker();
      return worker;
    },
    postgres: startPostgres && {
      processes: () => processTree(postgres!.pid!),
      stop: () => postgres!.stop(),
      async start() {
        postgres = await restartServer(startPostgres!, 'Postgres');
      },
    },
    async close() {
      closing = true;
      await worker.stop();
      await api.close();
      await postgres?.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return stack;
}
