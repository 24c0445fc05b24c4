import fs from 'node:fs';
import path from 'node:path';

// Reads a V8 .cpuprofile (node --cpu-prof) and tells where a time window went.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  window_ms: number;
  /** Share of the window the main thread was idle (waiting for I/O): 100 minus the event loop's utilisation. */
  idle_pct: number;
  /** Self time by area: a package, a project folder, Node internals, GC, native code outside JS ("(program)"). */
  by_area: Array<{ area: string; ms: number; pct: number }>;
  /** Functions with the most self time. */
  top_self: Array<{ function: string; ms: number; pct: number }>;
  /** Functions with the most time including what they call (each counted once per sample). */
  top_total: Array<{ function: string; ms: number; pct: number }>;
}

/** Where a frame's code lives: a file of the project relative to its root, a package, Node itself, or native code. */
function locate(frame: ProfileNode['callFrame'], roots: string[]): { area: string; name: string } {
  const fn = frame.functionName || '(anonymous)';
  if (!frame.url) return { area: fn.startsWith('(') ? fn : 'native (builtins, bindings)', name: fn };
  const file = frame.url.startsWith('file://') ? decodeURIComponent(frame.url.slice(7)) : frame.url;
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(file);
  if (inModules) return { area: inModules[1], name: `${fn} ${inModules[1]}/${inModules[2]}:${frame.lineNumber + 1}` };
  if (file.startsWith('node:')) return { area: 'node internals', name: `${fn} ${file}:${frame.lineNumber + 1}` };
  const root = roots.find((dir) => file.startsWith(`${dir}/`));
  // Line numbers of project files are those of tsx's output, not of the sources: the name alone says enough.
  if (root) return { area: `${path.relative(root, file).split(path.sep)[0]}/`, name: `${fn} ${path.relative(root, file)}` };
  return { area: 'other', name: `${fn} ${file}` };
}

const top = (totals: Map<string, number>, windowUs: number, n: number) =>
  [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, us]) => ({ key, ms: Math.round(us / 100) / 10, pct: Math.round((1000 * us) / windowUs) / 10 }));

/** Summarises the samples of `file` taken between `fromUs` and `toUs` (µs of the monotonic clock, as process.hrtime). */
export function summariseProfile(file: string, fromUs: number, toUs: number, roots: string[]): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const area = new Map<string, number>();
  let idle = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i];
    // A sample's time is the gap to the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (at < fromUs || at > toUs) continue;
    const node = byId.get(profile.samples[i])!;
    if (node.callFrame.functionName === '(idle)') idle += us;
    const { area: where, name } = locate(node.callFrame, roots);
    self.set(name, (self.get(name) ?? 0) + us);
    area.set(where, (area.get(where) ?? 0) + us);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parentOf.get(id)) {
      const key = locate(byId.get(id)!.callFrame, roots).name;
      if (seen.has(key) || key === '(root)') continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + us);
    }
  }
  const windowUs = toUs - fromUs;
  return {
    window_ms: Math.round(windowUs / 1000),
    idle_pct: Math.round((1000 * idle) / windowUs) / 10,
    by_area: top(area, windowUs, 15).map(({ key, ms, pct }) => ({ area: key, ms, pct })),
    top_self: top(self, windowUs, 25).map(({ key, ms, pct }) => ({ function: key, ms, pct })),
    top_total: top(total, windowUs, 40).map(({ key, ms, pct }) => ({ function: key, ms, pct })),
  };
}
