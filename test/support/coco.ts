import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const python = path.join(root, '.tools', 'pycocotools', 'bin', 'python');

export interface CocoReading {
  images: Array<{ id: number; file_name: string; width: number; height: number; media_id: string; labels: string[]; boxes: number[][] }>;
  categories: string[];
  annotations: number;
  info: Record<string, unknown> | null;
}

/** What pycocotools (installed by scripts/install-pycocotools.sh) reads from a COCO annotation file. */
export function readWithPycocotools(annotationFile: string): CocoReading {
  if (!fs.existsSync(python)) throw new Error(`${python} is missing: run bash scripts/install-pycocotools.sh`);
  const output = execFileSync(python, [path.join(__dirname, 'read_coco.py'), annotationFile], { encoding: 'utf8' });
  // pycocotools prints its progress before our JSON line.
  return JSON.parse(output.trim().split('\n').pop()!);
}
