import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const probe = path.join(root, 'test', 'support', 'logProbe.ts');
const node = [process.execPath, '--import', 'tsx', probe];
// The environment the probe gets: this one without a LOG_FORMAT of its own, and no colour settings.
const baseEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !['LOG_FORMAT', 'NO_COLOR', 'FORCE_COLOR'].includes(key)),
) as NodeJS.ProcessEnv;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the probe with stdout on a pipe. */
function runPiped(env: Record<string, string>): Run {
  const result = spawnSync(node[0], node.slice(1), { cwd: root, env: { ...baseEnv, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the probe with stdout on a pseudo-terminal (util-linux `script`), as in a person's shell. */
function runOnTerminal(env: Record<string, string>): Run {
  const command = node.map((part) => `'${part}'`).join(' ');
  const result = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: root, env: { ...baseEnv, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r/g, ''), stderr: result.stderr };
}

const lines = (text: string) => text.split('\n').filter((line) => line.trim() !== '');

function expectJson(run: Run): void {
  expect(run.status).toBe(0);
  const events = lines(run.stdout).map((line) => JSON.parse(line));
  expect(events).toEqual([expect.objectContaining({ level: 30, process: 'probe', items: 3, msg: 'probe started' })]);
}

function expectPretty(run: Run): void {
  expect(run.status).toBe(0);
  const [first, ...rest] = lines(run.stdout);
  expect(() => JSON.parse(first)).toThrow();
  expect(first).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: \[probe\] probe started$/);
  expect(rest.join('\n')).toMatch(/items: 3/);
}

describe('log format (LOG_FORMAT)', () => {
  it('writes JSON lines when stdout is not a terminal', () => {
    expectJson(runPiped({}));
  });

  it('writes readable lines on a terminal', () => {
    expectPretty(runOnTerminal({}));
  });

  it('LOG_FORMAT=pretty writes readable lines into a pipe too', () => {
    expectPretty(runPiped({ LOG_FORMAT: 'pretty' }));
  });

  it('LOG_FORMAT=json writes JSON lines on a terminal too', () => {
    expectJson(runOnTerminal({ LOG_FORMAT: 'json' }));
  });

  it('refuses an unknown format with one clear line and exit code 2', () => {
    const run = runPiped({ LOG_FORMAT: 'yaml' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/LOG_FORMAT.*expected auto, pretty or json/);
    expect(run.stdout).toBe('');
  });
});
