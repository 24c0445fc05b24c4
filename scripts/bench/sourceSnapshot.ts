import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../lib/projectRoot';

const git = (args: string[]) => execFileSync('git', args, { cwd: projectRoot(), maxBuffer: 64 * 2 ** 20, stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * A copy of the working tree (tracked and new files, as they are now) under `target`, sharing the
 * project's node_modules and .tools; the processes a bench starts run from it, so edits made in the
 * checkout while the bench runs do not change what is measured. Each of `revert` is taken as it was
 * at commit `rev` instead (or left out if it did not exist then).
 */
export function snapshotSources(target: string, revert?: { rev: string; paths: string[] }): { commit: string; dirty: string[] } {
  const root = projectRoot();
  const files = git(['ls-files', '-z', '--cached', '--others', '--exclude-standard']).toString('utf8').split('\0').filter(Boolean);
  for (const file of files) {
    const from = path.join(root, file);
    if (!fs.existsSync(from) || fs.statSync(from).isDirectory()) continue;
    fs.mkdirSync(path.dirname(path.join(target, file)), { recursive: true });
    fs.copyFileSync(from, path.join(target, file));
  }
  for (const shared of ['node_modules', '.tools']) fs.symlinkSync(path.join(root, shared), path.join(target, shared));
  for (const file of revert?.paths ?? []) {
    fs.rmSync(path.join(target, file), { force: true });
    try {
      fs.writeFileSync(path.join(target, file), git(['show', `${revert!.rev}:${file}`]));
    } catch {
      // The file is new since `rev`: the old code never imports it.
    }
  }
  const dirty = git(['status', '--porcelain']).toString('utf8').split('\n').filter(Boolean).map((line) => line.slice(3));
  return { commit: git(['rev-parse', 'HEAD']).toString('utf8').trim(), dirty };
}
