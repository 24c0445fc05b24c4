import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../lib/projectRoot';

/** An activity adapts a service to Temporal (I/O plumbing, heartbeats, cancellation, retries); a longer one holds a use case that belongs in services/. */
const MAX_ACTIVITY_LINES = 120;

/** Lines of a file as `wc -l` counts them. */
function lineCount(file: string): number {
  return (fs.readFileSync(file, 'utf8').match(/\n/g) ?? []).length;
}

describe('activities/', () => {
  it(`holds no file over ${MAX_ACTIVITY_LINES} lines`, () => {
    const dir = path.join(projectRoot(), 'activities');
    const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(0);
    const over = files.map((name) => ({ file: `activities/${name}`, lines: lineCount(path.join(dir, name)) })).filter(({ lines }) => lines > MAX_ACTIVITY_LINES);
    expect(over).toEqual([]);
  });
});
