import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

// CPU time from /proc: how a load window's CPU was shared between the processes of a bench and the rest of the machine.

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());

/** The name, utime + stime, cutime + cstime and the parent of a process (or of one of its threads, `tid`), from /proc. */
function statOf(pid: number, tid?: number): { name: string; own: number; reaped: number; ppid: number } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may hold spaces: fields are counted after it (state is field 3).
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    name: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')),
    ppid: Number(fields[1]),
    own: Number(fields[11]) + Number(fields[12]),
    reaped: Number(fields[13]) + Number(fields[14]),
  };
}

/** CPU seconds of one process (its own, not its children's); undefined once it is gone. */
export function processCpuSeconds(pid: number): number | undefined {
  const stat = statOf(pid);
  return stat && stat.own / ticksPerSecond;
}

const pids = () => fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);

/** CPU seconds of a process and of all its children, living or reaped. */
export function treeCpuSeconds(root: number): number {
  const all = pids().map((pid) => ({ pid, stat: statOf(pid) }));
  const children = new Map<number, number[]>();
  for (const { pid, stat } of all) if (stat) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  let ticks = 0;
  const visit = (pid: number, isRoot: boolean) => {
    const stat = statOf(pid);
    if (!stat) return;
    ticks += stat.own + (isRoot ? stat.reaped : 0);
    for (const child of children.get(pid) ?? []) visit(child, false);
  };
  visit(root, true);
  return ticks / ticksPerSecond;
}

/** The postmaster of the Postgres whose data directory is `dataDir`. */
export function postmasterOf(dataDir: string): number {
  for (const pid of pids()) {
    try {
      const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (args[0].endsWith('/postgres') && args.includes(dataDir)) return pid;
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no postgres process serves ${dataDir}`);
}

/** Busy and total CPU seconds of the whole machine (all cores) since boot. */
export function machineCpuSeconds(): { busy: number; total: number } {
  const [, ...values] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = values.map(Number);
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  return { busy: (total - idle - iowait) / ticksPerSecond, total: total / ticksPerSecond };
}

/**
 * CPU seconds of a process's threads: the main thread as `main`, the others by name (digits folded, so pools add up)
 * and, for threads left with the runtime's own name (`node`: libuv's pool, worker threads, native libraries' pools), by
 * their rank in creation order (`node 3`); plus `exited threads`, what the process's total has beyond its living threads.
 */
export function threadCpuSeconds(pid: number): Record<string, number> {
  const byName: Record<string, number> = {};
  let living = 0;
  let tids: number[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`).map(Number).sort((a, b) => a - b);
  } catch {
    return byName;
  }
  let unnamed = 0;
  for (const tid of tids) {
    const stat = statOf(pid, tid);
    if (!stat) continue; // gone meanwhile
    let name = stat.name.replace(/\d+/g, '#');
    if (tid === pid) name = 'main';
    else if (name === 'node') name = `node ${++unnamed}`;
    byName[name] = (byName[name] ?? 0) + stat.own / ticksPerSecond;
    living += stat.own;
  }
  const total = statOf(pid)?.own ?? living;
  byName['exited threads'] = Math.max(0, total - living) / ticksPerSecond;
  return byName;
}
