import fs from 'node:fs';
import path from 'node:path';

/** The folder holding package.json, whether we run from sources or from the compiled dist/. */
export function projectRoot(start = __dirname): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${start}`);
    dir = parent;
  }
  return dir;
}
