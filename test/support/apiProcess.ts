import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import type { Env } from '../../lib/config';
import { projectRoot } from '../../lib/projectRoot';

export interface ApiProcess {
  url: string;
  /** True while the process runs: a crash (an uncaught error, say) makes it false. */
  alive(): boolean;
  /** The process's log lines so far, parsed (the last 2,000). */
  logs(): Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

const KEPT_LOG_LINES = 2000;

/**
 * The API as `npm run api` runs it, in a process of its own, so a request that crashes it shows
 * as a dead process instead of taking the test runner down. Listens on a free port of 127.0.0.1, and so does its
 * pipeline trigger (two suites starting an API on the default PIPELINE_PORT at once made one fail to start).
 */
export async function startApiProcess(env: Env, timeoutMs = 60_000): Promise<ApiProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot(), 'api', 'server.ts')], {
    cwd: projectRoot(),
    env: { ...process.env, PIPELINE_PORT: '0', ...env, API_HOST: '127.0.0.1', API_PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the API did not start within ${timeoutMs} ms: ${stderr.join('')}`)), timeoutMs);
    // runMain logs a fatal start-up error as JSON on stdout: show the last lines with stderr.
    const lastLogs = () => logs.slice(-5).map((entry) => JSON.stringify(entry)).join('\n');
    void exited.then(() => reject(new Error(`the API exited during start-up (code ${child.exitCode}, signal ${child.signalCode}): ${stderr.join('')}\n${lastLogs()}`)));
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      logs.push(entry);
      if (logs.length > KEPT_LOG_LINES) logs.shift();
      if (entry.msg === 'api listening') {
        clearTimeout(timer);
        resolve(entry.port as number);
      }
    });
  });

  return {
    url: `http://127.0.0.1:${port}`,
    alive: () => child.exitCode === null && child.signalCode === null,
    logs: () => logs,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
