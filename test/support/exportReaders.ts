import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const python = path.join(root, '.tools', 'export-readers', 'bin', 'python');

export interface YoloReading {
  classes: string[];
  /** By image file name: its decoded size and its boxes in pixels (x1, y1, x2, y2). */
  images: Record<string, { width: number; height: number; boxes: Array<{ label: string; xyxy: number[] }> }>;
}

export interface HuggingFaceReading {
  image_feature: boolean;
  features: Record<string, string>;
  rows: Array<{
    media_id: string;
    media_type: string;
    image: { width: number; height: number; mode: string } | null;
    labels: Array<{ label: string }>;
    objects: Array<{ label: string; bounding_box: { x: number; y: number; width: number; height: number } }>;
    width: number | null;
  }>;
  card_rows: number;
  card_image_feature: boolean;
}

/** The text files of an export as their readers parse them: data.yaml (PyYAML), README.md (huggingface_hub's DatasetCard). */
export interface TextReading {
  data_yaml?: Record<string, unknown>;
  card?: { metadata: Record<string, unknown>; body: string };
}

/** A YOLO export with split folders, each read by supervision: data.yaml's keys but names, the classes, each split's images by file name. */
export interface YoloSplitsReading {
  data_yaml: Record<string, unknown>;
  classes: string[];
  splits: Record<string, YoloReading['images']>;
}

/** A Hugging Face export loaded by `load_dataset(DIR)`: per split, the label feature and each row's media id, class id and image size. */
export type HuggingFaceSplitsReading = Record<
  string,
  { label_feature: { class_label: boolean; names: string[] }; rows: Array<{ media_id: string; label: number; image: [number, number] | null }> }
>;

/** Unpacks `entries` into a new directory, reads it with supervision, datasets or the text readers (scripts/install-export-readers.sh), and removes it. */
export function readExport(mode: 'yolo', entries: Map<string, Buffer>): YoloReading;
export function readExport(mode: 'hf', entries: Map<string, Buffer>): HuggingFaceReading;
export function readExport(mode: 'text', entries: Map<string, Buffer>): TextReading;
export function readExport(mode: 'yolo-splits', entries: Map<string, Buffer>): YoloSplitsReading;
export function readExport(mode: 'hf-splits', entries: Map<string, Buffer>): HuggingFaceSplitsReading;
export function readExport(mode: string, entries: Map<string, Buffer>): unknown {
  if (!fs.existsSync(python)) throw new Error(`${python} is missing: run bash scripts/install-export-readers.sh`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `export-${mode}-`));
  try {
    for (const [name, content] of entries) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), content);
    }
    // Offline: datasets must read the files here, never the Hub; its caches go to the scratch directory.
    const env = { ...process.env, HF_HUB_OFFLINE: '1', HF_DATASETS_OFFLINE: '1', HF_HOME: path.join(dir, '.hf'), HF_HUB_DISABLE_TELEMETRY: '1' };
    // stderr (supervision's note that OpenCV is absent, progress bars) comes with the error when the reader fails.
    const output = execFileSync(python, [path.join(__dirname, 'read_exports.py'), mode, dir], { encoding: 'utf8', env, maxBuffer: 64 * 2 ** 20, stdio: 'pipe' });
    return JSON.parse(output.trim().split('\n').pop()!);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
