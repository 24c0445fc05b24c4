import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawnManaged, waitForOutput } from '../../lib/embedded/process';
import { projectRoot } from '../../lib/projectRoot';
import { freePort } from './ports';

/** Where CI and this machine provide a Qdrant server build (xz-compressed) next to the repository. */
const SIBLING_TOOLS = path.join(projectRoot(), '..', 'shared', 'tools', 'qdrant');
const START_TIMEOUT_MS = 30_000;
const LOG_TAIL_CHARS = 4000;

/**
 * The Qdrant server binary the tests start: QDRANT_BIN (an executable or an .xz of one), else the
 * build in the sibling tools folder; undefined when there is none, and the Qdrant suites are not registered.
 */
export function findQdrantBinary(): string | undefined {
  const explicit = process.env.QDRANT_BIN;
  if (explicit) {
    if (!fs.existsSync(explicit)) throw new Error(`QDRANT_BIN=${explicit} does not exist`);
    return unpacked(path.resolve(explicit));
  }
  if (!fs.existsSync(SIBLING_TOOLS)) return undefined;
  const file = fs.readdirSync(SIBLING_TOOLS).sort().reverse().find((name) => /^qdrant(-.*)?(\.xz)?$/.test(name));
  return file ? unpacked(path.join(SIBLING_TOOLS, file)) : undefined;
}

/** An .xz is decompressed once into .tools/qdrant/ (through a temporary name, as concurrent runs may race). */
function unpacked(file: string): string {
  if (!file.endsWith('.xz')) return file;
  const target = path.join(projectRoot(), '.tools', 'qdrant', path.basename(file, '.xz'));
  if (fs.existsSync(target) && fs.statSync(target).mtimeMs >= fs.statSync(file).mtimeMs) return target;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  const out = fs.openSync(temporary, 'w', 0o755);
  try {
    const result = spawnSync('xz', ['-dc', file], { stdio: ['ignore', out, 'pipe'] });
    if (result.status !== 0) throw new Error(`xz -dc ${file} failed: ${result.error?.message ?? result.stderr.toString()}`);
  } finally {
    fs.closeSync(out);
  }
  fs.renameSync(temporary, target);
  return target;
}

export interface QdrantServer {
  url: string;
  stop(): Promise<void>;
}

/** A Qdrant server on free ports of 127.0.0.1, its storage under `dataDir`, serving once this resolves. */
export async function startQdrantServer(options: { binary: string; dataDir: string }): Promise<QdrantServer> {
  // A port taken between freePort() and the server's bind makes it exit: try again on others.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

async function startOnce(options: { binary: string; dataDir: string }): Promise<QdrantServer> {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  fs.mkdirSync(options.dataDir, { recursive: true });
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('QDRANT__')));
  const server = spawnManaged(options.binary, [], {
    // Qdrant looks for config/ and static/ relative to its working directory.
    cwd: options.dataDir,
    env: {
      ...inherited,
      QDRANT__SERVICE__HOST: '127.0.0.1',
      QDRANT__SERVICE__HTTP_PORT: String(httpPort),
      QDRANT__SERVICE__GRPC_PORT: String(grpcPort),
      QDRANT__STORAGE__STORAGE_PATH: path.join(options.dataDir, 'storage'),
      QDRANT__STORAGE__SNAPSHOTS_PATH: path.join(options.dataDir, 'snapshots'),
      QDRANT__TELEMETRY_DISABLED: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Keep draining its log (it logs every request; a full pipe would stall it), remembering the tail.
  let tail = '';
  const keep = (chunk: Buffer) => (tail = (tail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS));
  server.child.stdout!.on('data', keep);
  server.child.stderr!.on('data', keep);
  const url = `http://127.0.0.1:${httpPort}`;
  try {
    // This line comes once *this* server has bound the port, not some other process already on it.
    await waitForOutput(server, (text) => text.includes(`listening on: 127.0.0.1:${httpPort}`), START_TIMEOUT_MS, 'Qdrant');
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await ready(url))) {
      if (Date.now() > deadline) throw new Error(`Qdrant at ${url} is not ready after ${START_TIMEOUT_MS} ms:\n${tail}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } catch (error) {
    await server.stop('SIGKILL');
    throw error;
  }
  return { url, stop: () => server.stop('SIGTERM', 10_000) };
}

/** GET /readyz on a connection of its own, closed after: a kept-alive one would hold up the server's graceful stop by seconds. */
function ready(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get(`${url}/readyz`, { agent: false, timeout: 1000 }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode === 200));
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(false));
  });
}

/** The run's Qdrant server (started by globalSetup), or undefined: then Qdrant suites are not registered. */
export function testQdrantUrl(): string | undefined {
  return process.env.TEST_QDRANT_URL || undefined;
}

/** A call to Qdrant's REST API (for what the VectorStore port does not expose), its `result`. */
export async function qdrantCall<T>(url: string, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${url}${route}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!response.ok) throw new Error(`Qdrant ${method} ${route}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { result: T }).result;
}

export interface QdrantCollectionInfo {
  status: string;
  points_count: number;
  indexed_vectors_count: number;
  config: { quantization_config: { scalar?: { type: string; quantile?: number; always_ram?: boolean } } | null };
}

/**
 * Has the collection build its HNSW index and quantized vectors however few its points, and waits until every point
 * is in an indexed segment: Qdrant otherwise scans small collections with their float32 vectors only.
 */
export async function indexWhateverTheSize(url: string, collection: string): Promise<void> {
  await qdrantCall(url, 'PATCH', `/collections/${collection}`, { optimizers_config: { indexing_threshold: 1 }, hnsw_config: { full_scan_threshold: 10 } });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const info = await qdrantCall<QdrantCollectionInfo>(url, 'GET', `/collections/${collection}`);
    if (info.status === 'green' && info.indexed_vectors_count >= info.points_count) return;
    if (Date.now() > deadline) throw new Error(`Qdrant collection ${collection} not indexed after 120 s: ${JSON.stringify(info)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
