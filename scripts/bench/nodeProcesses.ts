import fs from 'node:fs';
import { spawnManaged, type ManagedProcess } from '../../lib/embedded/process';
import { projectRoot } from '../../lib/projectRoot';

// The service's own processes (API, worker) started by a bench, and what they hold in memory.

export const mib = (kib: number) => Math.round(kib / 1024);

/** VmRSS, VmHWM (peak), and the RSS's anonymous and file-backed parts (RssAnon, RssFile) of a process, in KiB. */
export function memoryOf(pid: number | 'self'): { rss: number; peak: number; anon: number; file: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rss: field('VmRSS'), peak: field('VmHWM'), anon: field('RssAnon'), file: field('RssFile') };
}

/** Node running `entry` of `sourceDir` (with `entryArgs`) with its output in `logFile`; on CPU `cpu` alone when given (taskset). */
export function startNode(
  sourceDir: string,
  entry: string,
  env: Record<string, string>,
  logFile: string,
  nodeFlags: string[] = [],
  entryArgs: string[] = [],
  cpu?: number,
): ManagedProcess {
  const log = fs.openSync(logFile, 'a');
  const command = [process.execPath, ...nodeFlags, '--import', 'tsx', entry, ...entryArgs];
  // taskset execs node in its own place: the pid stays the one whose memory is sampled.
  const pinned = cpu === undefined ? command : ['taskset', '--cpu-list', String(cpu), ...command];
  const child = spawnManaged(pinned[0], pinned.slice(1), {
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

/** Peaks of a process's anonymous memory (its heap and buffers) and of its file-backed pages (a memory-mapped index), in MiB. */
export interface SampledPeaks {
  anon_mib: number;
  file_mib: number;
}

/**
 * Samples `pid`'s RssAnon and RssFile every 100 ms from this process (the sampled one may be blocked in a native
 * search) until `done` settles. VmHWM gives only the sum's peak: an index mapped from a file counts in it, yet it is
 * page cache the kernel shares between processes and may drop.
 */
export async function sampledPeaks(pid: number, done: Promise<unknown>): Promise<SampledPeaks> {
  const peaks = { anon: 0, file: 0 };
  const sample = () => {
    try {
      const { anon, file } = memoryOf(pid);
      // An exited process not yet reaped (a zombie) has a status without its memory lines: NaN, not a sample.
      if (Number.isNaN(anon) || Number.isNaN(file)) return;
      peaks.anon = Math.max(peaks.anon, anon);
      peaks.file = Math.max(peaks.file, file);
    } catch {
      // The process has exited.
    }
  };
  const timer = setInterval(sample, 100);
  try {
    await done;
  } finally {
    clearInterval(timer);
  }
  return { anon_mib: mib(peaks.anon), file_mib: mib(peaks.file) };
}

/**
 * Runs a bench stage (`entry` with `entryArgs`) in a node process of its own and parses the JSON line it prints last,
 * adding the peaks sampled meanwhile; on CPU `cpu` alone when given. BENCH_STAGE_NODE_FLAGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/profiles`) go to
 * each stage's node.
 */
export async function runStage<T>(entry: string, env: Record<string, string>, logFile: string, entryArgs: string[], cpu?: number): Promise<T & { sampled_peaks: SampledPeaks }> {
  const nodeFlags = (process.env.BENCH_STAGE_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const stage = startNode(projectRoot(), entry, env, logFile, nodeFlags, entryArgs, cpu);
  const [{ code, signal }, peaks] = await Promise.all([stage.exited, sampledPeaks(stage.child.pid!, stage.exited)]);
  const output = fs.readFileSync(logFile, 'utf8');
  if (code !== 0) throw new Error(`${entry} ${entryArgs.join(' ')} exited with ${code ?? signal}:\n${output.slice(-4000)}`);
  return { ...(JSON.parse(output.trim().split('\n').at(-1)!) as T), sampled_peaks: peaks };
}
