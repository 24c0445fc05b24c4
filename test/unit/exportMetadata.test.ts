import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type * as Hyparquet from 'hyparquet' with { 'resolution-mode': 'import' };
import type { ExportRecord } from '../../lib/export/exportRecord';
import { exportFormatOf, type ExportFormat } from '../../lib/export/formats';
import { PARQUET_COLUMNS } from '../../lib/export/formats/parquet';
import type { UserClasses } from '../../lib/export/userClasses';
import type { MetadataWriter } from '../../lib/export/writer';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parquetMetadata, parquetReadObjects } = require('hyparquet') as typeof Hyparquet;

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function record(n: number, overrides: Partial<ExportRecord> = {}): ExportRecord {
  return {
    media_id: uuid(n),
    media_type: 'IMAGE',
    file_name: `img_${n}.jpg`,
    image_filename: `img_${n}.jpg`,
    original_path: `img_${n}.jpg`,
    source_kind: n % 2 ? 'upload' : 's3',
    source_location: n % 2 ? null : 's3://bucket/folder/',
    sha256: String(n).padStart(64, 'a'),
    size_bytes: 1_000_000 + n,
    format: 'jpeg',
    width: 640,
    height: 480,
    duration_ms: null,
    video_id: null,
    frame_index: null,
    frame_time_ms: null,
    cluster_id_0: uuid(100_000 + n),
    cluster_id_1: uuid(200_000 + Math.floor(n / 3)),
    cluster_id_2: uuid(300_000 + Math.floor(n / 10)),
    cluster_id_3: null,
    cluster_id_4: uuid(400_000),
    uniqueness_score: (n % 1000) / 1000,
    duplicate_of: n % 50 === 0 ? uuid(n - 1) : null,
    similarity: n % 50 === 0 ? 0.97 : null,
    mislabel_score: n % 40 === 0 ? 0.85 : null,
    suggested_label: n % 40 === 0 ? 'dog' : null,
    issues: n % 20 === 0 ? [{ type: 'dark', confidence: 0.8, details: null }] : [],
    labels: n % 5 === 0 ? [{ label: ['cat', 'dog'][n % 2], source: 'custom', confidence: null }] : [],
    tags: n % 10 === 0 ? [{ id: uuid(9), name: 'keep' }] : [],
    caption: n % 3 === 0 ? `a photo number ${n} — “quoted”` : null,
    objects: [],
    custom_metadata: n % 7 === 0 ? { photographer: 'NASA', iso: n, nested: { ok: true } } : null,
    created_at: new Date(Date.UTC(2026, 10, 26, 10, 0, 0, n)).toISOString(),
    ...overrides,
  };
}

/** A reader that takes its time: every chunk waits a turn of the event loop, so writers must respect back-pressure. */
function slowSink(): { sink: Writable; bytes(): Buffer } {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      setImmediate(done);
    },
  });
  return { sink, bytes: () => Buffer.concat(chunks) };
}

/** The bytes of a record's file in these tests: its media id. */
const bytesOf = (record: ExportRecord) => Buffer.from(`bytes of ${record.media_id}`);

/**
 * Writes `pages` in `format` (with the user's `classes` when given); `entries` receives the entries of
 * the format's own, in order, and `images` where each record's bytes would go.
 */
async function write(
  format: ExportFormat,
  pages: ExportRecord[][],
  out: Writable = new PassThrough(),
  entries = new Map<string, Buffer>(),
  options: { classes?: UserClasses; images?: Map<string, string | null> } = {},
) {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'metadata-'));
  try {
    const { layout, writer: createWriter } = exportFormatOf(format);
    const writer: MetadataWriter = createWriter(out, {
      datasetName: 'pets',
      exportedAt: new Date('2026-11-26T12:00:00Z'),
      classes: options.classes ?? null,
      scratchPath: (name) => path.join(scratch, name),
      addEntry: async (name, content) => {
        expect(entries.has(name)).toBe(false);
        entries.set(name, Buffer.isBuffer(content) ? content : await buffer(content));
      },
      readBytes: async (record) => bytesOf(record),
    });
    for (const page of pages) {
      await writer.write(page);
      for (const record of page) options.images?.set(record.media_id, writer.imageEntry ? writer.imageEntry(record) : `images/${record.image_filename}`);
    }
    await writer.finish();
    return layout.fileName;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Entries as text. */
const texts = (entries: Map<string, Buffer>) => Object.fromEntries([...entries].map(([name, content]) => [name, content.toString('utf8')]));

describe('export metadata files', () => {
  it('writes metadata.json as one array of the records, across pages, empty when nothing is exported', async () => {
    const records = Array.from({ length: 2500 }, (_, i) => record(i));
    const { sink, bytes } = slowSink();
    expect(await write('json', [records.slice(0, 1000), records.slice(1000, 2000), [], records.slice(2000)], sink)).toBe('metadata.json');
    expect(JSON.parse(bytes().toString('utf8'))).toEqual(records);

    const empty = slowSink();
    await write('json', [[]], empty.sink);
    expect(JSON.parse(empty.bytes().toString('utf8'))).toEqual([]);
  });

  it('writes metadata.parquet a row group at a time with typed columns that read back as the records', async () => {
    const records = Array.from({ length: 23_456 }, (_, i) => record(i));
    const { sink, bytes } = slowSink();
    const pages = Array.from({ length: Math.ceil(records.length / 1000) }, (_, i) => records.slice(i * 1000, (i + 1) * 1000));
    expect(await write('parquet', pages, sink)).toBe('metadata.parquet');
    const file = new Uint8Array(bytes()).buffer;
    const metadata = parquetMetadata(file);
    expect(metadata.row_groups.map((group) => Number(group.num_rows))).toEqual([10_000, 10_000, 3456]);
    expect(metadata.schema.slice(1).map((element) => element.name)).toEqual(PARQUET_COLUMNS.map((column) => column.name));
    const rows = await parquetReadObjects({ file });
    expect(rows.map((row) => ({ ...row, size_bytes: Number(row.size_bytes), created_at: (row.created_at as Date).toISOString() }))).toEqual(records);
  });

  it('writes a Parquet file with no rows that still has every column', async () => {
    const { sink, bytes } = slowSink();
    await write('parquet', [[]], sink);
    const file = new Uint8Array(bytes()).buffer;
    expect(Number(parquetMetadata(file).num_rows)).toBe(0);
    expect(parquetMetadata(file).schema).toHaveLength(PARQUET_COLUMNS.length + 1);
  });

  it('writes COCO annotations: decodable images and frames, a whole-image box per label, object boxes in pixels', async () => {
    const { sink, bytes } = slowSink();
    const pages = [
      [
        record(1, { labels: [{ label: 'cat', source: 'custom', confidence: 0.9 }, { label: 'animal', source: 'custom', confidence: null }] }),
        record(2, { media_type: 'VIDEO', width: 320, height: 240, labels: [{ label: 'walk', source: 'custom', confidence: null }] }),
        record(3, { media_type: 'VIDEO_FRAME', video_id: uuid(2), frame_index: 4, image_filename: 'walk.mp4.frames/000004.jpg', width: 320, height: 240 }),
      ],
      [
        record(4, { width: null, height: null, labels: [{ label: 'cat', source: 'custom', confidence: null }] }),
        record(5, {
          width: 1000,
          height: 500,
          labels: [{ label: 'cat', source: 'custom', confidence: null }],
          objects: [{ label: 'dog', confidence: 0.75, bounding_box: { x: 0.1, y: 0.2, width: 0.5, height: 0.4 } }],
        }),
      ],
    ];
    expect(await write('coco', pages, sink)).toBe('annotations.json');
    const coco = JSON.parse(bytes().toString('utf8'));
    expect(coco.info).toMatchObject({ description: 'Export of pets', year: 2026, date_created: '2026-11-26T12:00:00.000Z' });
    expect(coco.images).toEqual([
      { id: 1, file_name: 'img_1.jpg', width: 640, height: 480, media_id: uuid(1) },
      { id: 2, file_name: 'walk.mp4.frames/000004.jpg', width: 320, height: 240, media_id: uuid(3), video_id: uuid(2), frame_index: 4 },
      { id: 3, file_name: 'img_5.jpg', width: 1000, height: 500, media_id: uuid(5) },
    ]);
    expect(coco.categories).toEqual([
      { id: 1, name: 'cat', supercategory: 'label' },
      { id: 2, name: 'animal', supercategory: 'label' },
      { id: 3, name: 'dog', supercategory: 'label' },
    ]);
    expect(coco.annotations).toEqual([
      { id: 1, image_id: 1, category_id: 1, bbox: [0, 0, 640, 480], area: 307200, iscrowd: 0, attributes: { image_level: true, source: 'custom', confidence: 0.9 } },
      { id: 2, image_id: 1, category_id: 2, bbox: [0, 0, 640, 480], area: 307200, iscrowd: 0, attributes: { image_level: true, source: 'custom', confidence: null } },
      { id: 3, image_id: 3, category_id: 1, bbox: [0, 0, 1000, 500], area: 500000, iscrowd: 0, attributes: { image_level: true, source: 'custom', confidence: null } },
      { id: 4, image_id: 3, category_id: 3, bbox: [100, 100, 500, 200], area: 100000, iscrowd: 0, attributes: { image_level: false, confidence: 0.75 } },
    ]);

    const empty = slowSink();
    await write('coco', [], empty.sink);
    expect(JSON.parse(empty.bytes().toString('utf8'))).toMatchObject({ images: [], annotations: [], categories: [] });
  });

  /** Images, a video, a frame and an undecodable image, with labels and objects: what the detection formats must sort out. */
  const detectionPages = () => [
    [
      record(1, { labels: [{ label: 'cat', source: 'custom', confidence: 0.9 }, { label: 'animal', source: 'custom', confidence: null }] }),
      record(2, { media_type: 'VIDEO', image_filename: 'walk.mp4', width: 320, height: 240, labels: [{ label: 'walk', source: 'custom', confidence: null }] }),
      record(3, { media_type: 'VIDEO_FRAME', video_id: uuid(2), frame_index: 4, image_filename: 'walk.mp4.frames/000004.jpg', width: 320, height: 240 }),
    ],
    [
      record(4, { width: null, height: null, labels: [{ label: 'cat', source: 'custom', confidence: null }] }),
      record(5, {
        width: 1000,
        height: 500,
        // Object detection's own label of a category it found: its objects carry the boxes.
        labels: [{ label: 'dog', source: 'OBJECT_DETECTION', confidence: 0.75 }],
        objects: [
          { label: 'dog', confidence: 0.75, bounding_box: { x: 0.1, y: 0.2, width: 0.5, height: 0.4 } },
          { label: 'cat', confidence: 0.5, bounding_box: { x: 0.9, y: 0.9, width: 0.2, height: 0.2 } },
        ],
      }),
    ],
  ];

  it('writes YOLO: a label file per image and frame (empty without boxes), whole-image boxes for labels, data.yaml with the classes', async () => {
    const { sink, bytes } = slowSink();
    const entries = new Map<string, Buffer>();
    expect(await write('yolo', detectionPages(), sink, entries)).toBe('data.yaml');
    expect(texts(entries)).toEqual({
      'labels/img_1.txt': '0 0.500000 0.500000 1.000000 1.000000\n1 0.500000 0.500000 1.000000 1.000000\n',
      // Folders joined into one file name: YOLO readers list one folder (its image goes to images/walk.mp4.frames__000004.jpg).
      'labels/walk.mp4.frames__000004.txt': '',
      // The second object reaches past the image's corner: the part inside is its box.
      'labels/img_5.txt': '2 0.350000 0.400000 0.500000 0.400000\n0 0.950000 0.950000 0.100000 0.100000\n',
    });
    const yaml = bytes().toString('utf8');
    // Written by the YAML serializer; no user text in its comment.
    expect(yaml).toMatch(/^# YOLO detection dataset\. [^\n]*\ntrain: "images"\nval: "images"\nnc: 3\nnames:\n {2}- "cat"\n {2}- "animal"\n {2}- "dog"\n$/);
  });

  it('refuses a YOLO export where two images would share a label file', async () => {
    const pages = [[record(1, { image_filename: 'a.jpg' })], [record(2, { image_filename: 'A.png' })]];
    await expect(write('yolo', pages)).rejects.toThrow('YOLO keeps one label file per file name without its extension: a.jpg and A.png would share labels/A.txt');
  });

  it('writes the Hugging Face layout: an image struct column with the bytes, the features in the Parquet metadata, a dataset card', async () => {
    const { sink, bytes } = slowSink();
    const entries = new Map<string, Buffer>();
    const pages = detectionPages();
    expect(await write('hf', pages, sink, entries)).toBe('README.md');
    const file = new Uint8Array(entries.get('data/train-00000-of-00001.parquet')!).buffer;
    const metadata = parquetMetadata(file);
    expect(metadata.schema.slice(1, 4).map((element) => element.name)).toEqual(['image', 'bytes', 'path']);
    const huggingface = JSON.parse(metadata.key_value_metadata!.find((entry) => entry.key === 'huggingface')!.value!);
    expect(huggingface.info.features).toMatchObject({ image: { _type: 'Image' }, media_id: { dtype: 'string', _type: 'Value' }, width: { dtype: 'int32', _type: 'Value' } });
    expect(Object.keys(huggingface.info.features)).toEqual(['image', ...PARQUET_COLUMNS.map((column) => column.name)]);

    const rows = await parquetReadObjects({ file });
    const records = pages.flat();
    expect(rows.map((row) => row.media_id)).toEqual(records.map((r) => r.media_id));
    const images = rows.map((row) => row.image as { bytes: Uint8Array; path: string } | null);
    expect(images.map((image) => image && Buffer.from(image.bytes).toString('utf8'))).toEqual([
      bytesOf(records[0]).toString('utf8'),
      null,
      bytesOf(records[2]).toString('utf8'),
      null,
      bytesOf(records[4]).toString('utf8'),
    ]);
    expect(images.map((image) => image?.path ?? null)).toEqual(['img_1.jpg', null, 'walk.mp4.frames/000004.jpg', null, 'img_5.jpg']);
    expect(JSON.parse(rows[4].objects as string)).toEqual(records[4].objects);
    expect(rows[0].created_at).toBe(records[0].created_at);

    expect([...entries.keys()]).toEqual(['data/train-00000-of-00001.parquet']);
    const card = bytes().toString('utf8');
    expect(card).toMatch(
      /^---\npretty_name: "pets"\nconfigs:\n {2}- config_name: "default"\n {4}data_files:\n {6}- split: "train"\n {8}path: "data\/train-\*\.parquet"\n---\n\n# pets\n/,
    );
    expect(card).toContain(': 5 media in `data/` (5 in train)');
  });
});
