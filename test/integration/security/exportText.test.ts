import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { ExportRecord } from '../../../lib/export/exportRecord';
import { exportFormatOf, type ExportFormat } from '../../../lib/export/formats';
import { byCodePoint, type UserClasses } from '../../../lib/export/userClasses';
import { readWithPycocotools } from '../../support/coco';
import { readExport } from '../../support/exportReaders';

/**
 * Issue 50 item 2: no dataset name, label or file name can add keys to, or break out of, the text an
 * export writes (YOLO data.yaml, the Hugging Face card's front matter and Markdown, COCO's JSON). Each
 * is read back by the parser its users run: PyYAML, huggingface_hub's DatasetCard, pycocotools.
 */
const HOSTILE = [
  // The probe's name: YAML 1.1 readers take U+2028 and U+0085 as line breaks.
  'pets\u2028path: /x\u2028download: https://evil.example/x.zip',
  'nel\u0085download: echo pwned',
  'ps\u2029train: /etc',
  'quotes "double" \'single\' `back`',
  '# not a comment',
  '---\nkey: value\n...',
  'crlf\r\nval: x',
  'controls \u0001\u0007\u001b[31m\u007f\u009b end',
  'tab\tand\u00a0nbsp\ufeffbom',
  '- [list]: {flow}, &anchor *alias !tag |',
  'yes',
  '<b>*html*</b> [link](http://x) & ![img](y)',
  'emoji 🐱 ok',
];

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function record(n: number, fileName: string, label: string): ExportRecord {
  return {
    media_id: uuid(n),
    media_type: 'IMAGE',
    file_name: fileName,
    image_filename: fileName,
    original_path: fileName,
    source_kind: 'upload',
    source_location: null,
    sha256: String(n).padStart(64, 'a'),
    size_bytes: 100,
    format: 'png',
    width: 40,
    height: 30,
    duration_ms: null,
    video_id: null,
    frame_index: null,
    frame_time_ms: null,
    cluster_id_0: null,
    cluster_id_1: null,
    cluster_id_2: null,
    cluster_id_3: null,
    cluster_id_4: null,
    uniqueness_score: null,
    duplicate_of: null,
    similarity: null,
    mislabel_score: null,
    suggested_label: null,
    issues: [],
    labels: [{ label, source: 'custom', confidence: null }],
    tags: [],
    caption: null,
    objects: [],
    custom_metadata: { class: label },
    created_at: new Date(Date.UTC(2026, 11, 6)).toISOString(),
  };
}

// File names as archive names allow them: no C0 controls or backslashes, but line separators, quotes and `#`.
const records = HOSTILE.map((label, i) => record(i + 1, `${i} ${label.replace(/[\u0000-\u001f\u007f\\/]/g, '_')}.png`, label));
const datasetName = HOSTILE.join(' | ');

/** Writes `format` for the hostile records; the archive's entries by name. */
async function exportEntries(format: ExportFormat, name = datasetName, exported = records, classes: UserClasses | null = null): Promise<Map<string, Buffer>> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'export-text-'));
  const entries = new Map<string, Buffer>();
  try {
    const out = new PassThrough();
    const metadata = buffer(out);
    const { layout, writer: createWriter } = exportFormatOf(format);
    const writer = createWriter(out, {
      datasetName: name,
      exportedAt: new Date('2026-12-06T12:00:00Z'),
      classes,
      scratchPath: (file) => path.join(scratch, file),
      addEntry: async (entry, content) => void entries.set(entry, Buffer.isBuffer(content) ? content : await buffer(content)),
      readBytes: async () => Buffer.from('not decoded here'),
    });
    await writer.write(exported);
    await writer.finish();
    entries.set(layout.fileName, await metadata);
    return entries;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

describe('the text of every export format under hostile names, labels and file names', () => {
  it('writes a data.yaml PyYAML reads with exactly its keys, the classes round-tripping', async () => {
    const reading = readExport('text', await exportEntries('yolo'));
    expect(Object.keys(reading.data_yaml!).sort()).toEqual(['names', 'nc', 'train', 'val']);
    expect(reading.data_yaml).toEqual({ train: 'images', val: 'images', nc: HOSTILE.length, names: HOSTILE });
  });

  it('adds no key to data.yaml or the card for a dataset named with YAML 1.1 line breaks (U+2028, U+0085, U+2029)', async () => {
    const plain = [record(1, 'a.png', 'cat')];
    for (const name of HOSTILE.slice(0, 3)) {
      expect(readExport('text', await exportEntries('yolo', name, plain)).data_yaml).toEqual({ train: 'images', val: 'images', nc: 1, names: ['cat'] });
      const { metadata } = readExport('text', await exportEntries('hf', name, plain)).card!;
      expect(Object.keys(metadata).sort()).toEqual(['configs', 'pretty_name']);
      expect(metadata.pretty_name).toBe(name);
    }
  });

  it('writes a dataset card whose front matter holds only its keys with the name round-tripping, and whose Markdown keeps the name on one escaped line', async () => {
    const reading = readExport('text', await exportEntries('hf'));
    const { metadata, body } = reading.card!;
    expect(Object.keys(metadata).sort()).toEqual(['configs', 'pretty_name']);
    expect(metadata.pretty_name).toBe(datasetName);
    expect(metadata.configs).toEqual([{ config_name: 'default', data_files: [{ split: 'train', path: 'data/train-*.parquet' }] }]);
    const lines = body.split('\n');
    // One heading line, then the card's own text: nothing of the name starts a line of its own.
    expect(lines.filter((line) => line.startsWith('#'))).toHaveLength(1);
    expect(lines[1]).toMatch(/^# pets/);
    expect(body).not.toMatch(/<b>|\]\(http|[\u2028\u2029\u0085\u0001\u007f]/);
    expect(lines.slice(2).join('\n')).toMatch(/^\nExported by the media dataset service at 2026-12-06T12:00:00.000Z: 13 media in `data\/`/);
  });

  it('writes COCO annotations pycocotools reads with every name, label and file name as it was', async () => {
    const entries = await exportEntries('coco');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-text-coco-'));
    try {
      fs.writeFileSync(path.join(dir, 'annotations.json'), entries.get('annotations.json')!);
      const reading = readWithPycocotools(path.join(dir, 'annotations.json'));
      expect(reading.info).toMatchObject({ description: `Export of ${datasetName}` });
      expect(reading.categories).toEqual([...HOSTILE].sort());
      expect(reading.images.map((image) => [image.file_name, image.labels])).toEqual(records.map((r) => [r.image_filename, [r.labels[0].label]]));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes hostile classes of the user (a declared label field) into data.yaml, COCO and classes.json as they are, and refuses those that cannot be folders', async () => {
    const classes: UserClasses = { labelField: 'class', splitField: null, names: [...HOSTILE].sort(byCodePoint) };
    const yolo = readExport('text', await exportEntries('yolo', datasetName, records, classes));
    expect(yolo.data_yaml).toEqual({ train: 'images', val: 'images', nc: HOSTILE.length, names: classes.names });

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-text-coco-'));
    try {
      fs.writeFileSync(path.join(dir, 'annotations.json'), (await exportEntries('coco', datasetName, records, classes)).get('annotations.json')!);
      expect(readWithPycocotools(path.join(dir, 'annotations.json')).categories).toEqual([...HOSTILE].sort());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }

    // Folder names cannot hold a line break, a control character or a slash: the export fails, naming the class.
    await expect(exportEntries('imagefolder', datasetName, records, classes)).rejects.toThrow(/^class ".*" cannot be a folder name/);
    const folderable = HOSTILE.filter((label) => !/[\u0000-\u001f\u007f/]/.test(label));
    const kept = records.filter((r) => folderable.includes(r.labels[0].label));
    const summary = JSON.parse((await exportEntries('imagefolder', datasetName, kept, { ...classes, names: [...folderable].sort(byCodePoint) })).get('classes.json')!.toString('utf8'));
    expect(summary.classes).toEqual([...folderable].sort(byCodePoint));
    expect(Object.keys(summary.images.all).sort()).toEqual([...folderable].sort());
  });
});
