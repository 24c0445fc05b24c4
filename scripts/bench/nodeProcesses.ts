import fs from 'node:fs';
import { spawnManaged, type ManagedProcess } from '../../lib/embedded/process';
import { projectRoot } from '../../lib/projectRoot';

// The service's own processes (API, worker) started by a bench, and what they hold in memory.

export const mib = (kib: number) => Math.round(kib / 1024);

/** VmRSS and VmHWM (peak) of a process, in KiB. */
export function memoryOf(pid: number | 'self'): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** Node running `entry` of `sourceDir` (with `entryArgs`) with its output in `logFile`. */
export function startNode(
  sourceDir: string,
  entry: string,
  env: Record<string, string>,
  logFile: string,
  nodeFlags: string[] = [],
  entryArgs: string[] = [],
): ManagedProcess {
  const log = fs.openSync(logFile, 'a');
  const child = spawnManaged(process.execPath, [...nodeFlags, '--import', 'tsx', entry, ...entryArgs], {
    cwd: sourceDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  return child;
}

/** Polls `ready` every 250 ms until it answers true; throws when `process` exits first or after `timeoutMs`. */
export async function waitFor(describe: string, process: ManagedProcess, ready: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await ready().catch(() => false))) {
    if (process.child.exitCode !== null) throw new Error(`${describe} exited with code ${process.child.exitCode}`);
    if (Date.now() > until) throw new Error(`${describe} was not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Runs a bench stage (`entry` with `entryArgs`) in a node process of its own and parses the JSON line it prints last. */
export async function runStage<T>(entry: string, env: Record<string, string>, logFile: string, entryArgs: string[]): Promise<T> {
  const stage = startNode(projectRoot(), entry, env, logFile, [], entryArgs);
  const { code, signal } = await stage.exited;
  const output = fs.readFileSync(logFile, 'utf8');
  if (code !== 0) throw new Error(`${entry} ${entryArgs.join(' ')} exited with ${code ?? signal}:\n${output.slice(-4000)}`);
  return JSON.parse(output.trim().split('\n').at(-1)!) as T;
}
