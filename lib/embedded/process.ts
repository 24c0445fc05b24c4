import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { ExitStatus, Running } from './supervisor';

export interface ManagedProcess extends Running {
  child: ChildProcess;
  pid?: number;
  /** Sends `signal` and resolves once the process has exited (SIGKILL after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
  /** Resolves when the process exits (or could not be spawned: code and signal null). */
  exited: Promise<ExitStatus>;
}

export function spawnManaged(command: string, args: string[], options: SpawnOptions): ManagedProcess {
  const child = spawn(command, args, options);
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    // Spawning failed (no such binary, say): there will be no exit event.
    child.once('error', () => {
      if (child.pid === undefined) resolve({ code: null, signal: null });
    });
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { child, pid: child.pid, stop, exited };
}

/** Resolves when `predicate` sees a matching line on the process's stderr or stdout; rejects if it exits first. */
export function waitForOutput(
  managed: ManagedProcess,
  predicate: (text: string) => boolean,
  timeoutMs: number,
  describe: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let recent = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      recent = (recent + text).slice(-4000);
      if (predicate(text)) finish();
    };
    const timer = setTimeout(() => fail(new Error(`${describe} did not start within ${timeoutMs} ms:\n${recent}`)), timeoutMs);
    const onExit = (code: number | null) => fail(new Error(`${describe} exited with code ${code}:\n${recent}`));
    const onError = (error: Error) => fail(new Error(`${describe} could not be started: ${error.message}`));
    const cleanup = () => {
      clearTimeout(timer);
      managed.child.stdout?.off('data', onData);
      managed.child.stderr?.off('data', onData);
      managed.child.off('exit', onExit);
      managed.child.off('error', onError);
    };
    const finish = () => {
      cleanup();
      resolve();
    };
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    managed.child.stdout?.on('data', onData);
    managed.child.stderr?.on('data', onData);
    managed.child.once('exit', onExit);
    managed.child.once('error', onError);
  });
}
