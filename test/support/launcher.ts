import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import supertest from 'supertest';
import { createDb, type Db } from '../../db/connection';
import { projectRoot } from '../../lib/projectRoot';
import { freePort } from './ports';

export interface Launcher {
  child: ChildProcess;
  /** Everything the launcher and its children printed so far. */
  output(): string;
  exited: Promise<number | null>;
  /** Waits (bounded) for `pattern` in the output after character `from`; returns the match. */
  waitForLine(pattern: RegExp, timeoutMs: number, from?: number): Promise<RegExpMatchArray>;
  /** Ctrl-C as a terminal sends it (SIGINT to the launcher's process group); resolves with its exit code. */
  interrupt(): Promise<number | null>;
}

/** The environment of a launcher on embedded defaults in `dataDir`, every port free. */
export async function launcherEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
  const { DATABASE_URL: _db, TEMPORAL_ADDRESS: _temporal, TEST_DATABASE_URL: _test, ...inherited } = process.env;
  return {
    ...inherited,
    DATA_DIR: dataDir,
    API_PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    PIPELINE_PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/** Starts the launcher as `npm start` does, in its own process group so Ctrl-C can be simulated. */
export function startLauncher(env: NodeJS.ProcessEnv): Launcher {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot(),
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async waitForLine(pattern, timeoutMs, from = 0) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = output.slice(from).match(pattern);
        if (match) return match;
        if (child.exitCode !== null) throw new Error(`launcher exited before ${pattern}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async interrupt() {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGINT');
      return exited;
    },
  };
}

/** The pid the launcher last reported for `name` ("API", "worker", "Postgres", "Temporal"). */
export function reportedPid(launcher: Launcher, name: string): number {
  const matches = [...launcher.output().matchAll(new RegExp(`\\[start\\] ${name} (?:running|restarted) \\(pid (\\d+)\\)`, 'g'))];
  if (matches.length === 0) throw new Error(`the launcher reported no pid for ${name}:\n${launcher.output()}`);
  return Number(matches[matches.length - 1][1]);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Processes started for `dataDir`: named in their command line (Postgres, Temporal) or their environment (API, worker). */
export function processesUsing(dataDir: string): string[] {
  const pids = fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  return pids.flatMap((pid) => {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
      return cmdline.includes(dataDir) || environ.split('\0').includes(`DATA_DIR=${dataDir}`) ? [`${pid}: ${cmdline.replace(/\0/g, ' ')}`] : [];
    } catch {
      return [];
    }
  });
}

/** The launcher's API over HTTP, for the helpers that take a TestApi's `request`. */
export function launcherApi(env: NodeJS.ProcessEnv): { request: ReturnType<typeof supertest>; url: string } {
  const url = `http://127.0.0.1:${env.API_PORT}`;
  return { request: supertest(url), url };
}

/** A connection to the launcher's embedded database. */
export function launcherDb(env: NodeJS.ProcessEnv): Db {
  const password = fs.readFileSync(path.join(env.DATA_DIR!, 'postgres.password'), 'utf8');
  return createDb(`postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${env.EMBEDDED_PG_PORT}/media_dataset`, 2);
}

/** The pid of the embedded Postgres server (the postmaster), from its lock file. */
export function postmasterPid(dataDir: string): number {
  return Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}
