import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const serverBin = path.join(root, '.tools', 's3server', 'bin', 'moto_server');
const startTimeoutMs = 30_000;
const stderrTailBytes = 4096;

export interface S3Server {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * A real S3 + STS server (moto, installed by scripts/install-s3-test-server.sh) on 127.0.0.1:port.
 * It keeps objects in memory, so every start is empty; dataDir holds its spooled large bodies.
 */
export async function startS3Server(options: { port: number; dataDir: string }): Promise<S3Server> {
  if (!fs.existsSync(serverBin)) {
    throw new Error(`${serverBin} is missing: run bash scripts/install-s3-test-server.sh`);
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const endpoint = `http://127.0.0.1:${options.port}`;
  const child = spawn(serverBin, ['-H', '127.0.0.1', '-p', String(options.port)], {
    cwd: options.dataDir,
    env: { ...process.env, TMPDIR: options.dataDir, PYTHONUNBUFFERED: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });

  // Werkzeug logs every request to stderr: keep draining it (a full pipe would stall the server),
  // but only remember the tail for error messages. Its "Running on" line comes once *this* child
  // has bound the port; without waiting for it, another server already on the port would pass the
  // HTTP check while our child is still failing to bind.
  let stderrTail = '';
  let bound = false;
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const text = stderrTail + chunk;
    bound ||= text.includes('Running on');
    stderrTail = text.slice(-stderrTailBytes);
  });

  let exitInfo: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitInfo = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
    child.once('error', (err) => {
      exitInfo = `spawn error: ${err.message}`;
      resolve();
    });
  });

  const stop = async (): Promise<void> => {
    if (exitInfo === undefined) child.kill('SIGTERM');
    await exited;
  };

  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (exitInfo !== undefined) {
      throw new Error(`S3 server exited before answering (${exitInfo}):\n${stderrTail}`);
    }
    if (bound && (await answers(`${endpoint}/moto-api/`))) return { endpoint, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`S3 server did not answer on ${endpoint} within ${startTimeoutMs} ms:\n${stderrTail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

export interface S3TestClientConfig {
  endpoint: string;
  region: string;
  forcePathStyle: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string };
}

/** Works for S3Client and STSClient alike (STS ignores forcePathStyle); the server checks no signatures. */
export function s3TestClientConfig(endpoint: string): S3TestClientConfig {
  return {
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  };
}
