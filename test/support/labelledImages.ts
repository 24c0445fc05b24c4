import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { projectRoot } from '../../lib/projectRoot';

const labelledDir = path.join(projectRoot(), '.tools', 'labelled-images');

export interface LabelledFixture {
  /** The image files to upload: the first `images` of the set, then the planted copies. */
  files: string[];
  /** A custom-metadata file (file_name, category, split) with the flipped labels. */
  metadataFile: string;
  /** The true label of every file name. */
  truth: Map<string, string>;
  /** File names whose label was flipped. */
  flipped: Set<string>;
  /** [original, copy] file names: a slightly brighter copy in the other split. */
  planted: Array<[string, string]>;
}

/**
 * Real labelled photos (Fashion-MNIST, scripts/fetch-labelled-images.sh) with 10 % of the labels
 * flipped by a fixed seed and `copies` near-duplicates planted in the other split, written to `scratch`.
 */
export async function labelledFixture(images: number, copies: number, scratch: string): Promise<LabelledFixture> {
  execFileSync('bash', [path.join(projectRoot(), 'scripts', 'fetch-labelled-images.sh'), String(images)], { stdio: 'inherit' });
  const rows = fs.readFileSync(path.join(labelledDir, 'labels.csv'), 'utf8').trim().split('\n').slice(1, images + 1).map((line) => line.split(','));
  const classes = [...new Set(rows.map(([, label]) => label))].sort();
  let seed = 27;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const fixture: LabelledFixture = { files: [], metadataFile: path.join(scratch, 'metadata.json'), truth: new Map(), flipped: new Set(), planted: [] };
  const metadata: Array<{ file_name: string; category: string; split: string }> = [];
  for (const [fileName, label, split] of rows) {
    fixture.truth.set(fileName, label);
    let given = label;
    if (random() < 0.1) {
      while (given === label) given = classes[Math.floor(random() * classes.length)];
      fixture.flipped.add(fileName);
    }
    metadata.push({ file_name: fileName, category: given, split });
    fixture.files.push(path.join(labelledDir, fileName));
  }
  // A slightly brighter copy of every 30th photo, in the other split.
  for (const [fileName, label, split] of rows.filter((_, i) => i % 30 === 1).slice(0, copies)) {
    const copy = `copy-${fileName}`;
    await sharp(path.join(labelledDir, fileName)).modulate({ brightness: 1.05 }).toFile(path.join(scratch, copy));
    fixture.files.push(path.join(scratch, copy));
    fixture.truth.set(copy, label);
    metadata.push({ file_name: copy, category: label, split: split === 'train' ? 'test' : 'train' });
    fixture.planted.push([fileName, copy]);
  }
  fs.writeFileSync(fixture.metadataFile, JSON.stringify(metadata));
  return fixture;
}
