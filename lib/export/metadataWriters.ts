import { once } from 'node:events';
import fs from 'node:fs';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type * as HyparquetWriter from 'hyparquet-writer' with { 'resolution-mode': 'import' };
import type { ExportFormat, ExportRecord } from './exportRecord';

// hyparquet-writer is published as ESM only; Node 20 loads it through require().
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ByteWriter, ParquetWriter, schemaFromColumnData } = require('hyparquet-writer') as typeof HyparquetWriter;

/** Writes the metadata file of an export, a page of records at a time, into a stream it ends itself. */
export interface MetadataWriter {
  /** Its name in the archive. */
  readonly fileName: string;
  write(records: ExportRecord[]): Promise<void>;
  /** Writes what is left and ends the stream. */
  finish(): Promise<void>;
  /** Lets go of what it holds open when the export stops half way (the caller destroys the stream). */
  abort(): void;
}

export interface MetadataContext {
  datasetName: string;
  exportedAt: Date;
  /** A file the COCO writer may keep its annotations in until the images are all written; removed by the caller. */
  scratchFile: string;
}

export const METADATA_FILE_NAMES: Record<ExportFormat, string> = {
  json: 'metadata.json',
  parquet: 'metadata.parquet',
  coco: 'annotations.json',
};

/** Writes with back-pressure: waits while the reader is behind. */
async function send(out: Writable, chunk: string | Uint8Array): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

function end(out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
}

/** metadata.json: one JSON array, one record per line. */
function jsonWriter(out: Writable): MetadataWriter {
  let first = true;
  return {
    fileName: METADATA_FILE_NAMES.json,
    async write(records) {
      if (records.length === 0) return;
      const text = records.map((record) => JSON.stringify(record)).join(',\n');
      await send(out, `${first ? '[\n' : ',\n'}${text}`);
      first = false;
    },
    async finish() {
      await send(out, first ? '[]\n' : '\n]\n');
      await end(out);
    },
    abort: () => undefined,
  };
}

type ParquetType = 'STRING' | 'JSON' | 'INT32' | 'INT64' | 'DOUBLE' | 'TIMESTAMP';

/** The columns of metadata.parquet: the record's fields in order; nested values are JSON columns. */
export const PARQUET_COLUMNS: ReadonlyArray<{ name: keyof ExportRecord; type: ParquetType; nullable: boolean }> = [
  { name: 'media_id', type: 'STRING', nullable: false },
  { name: 'media_type', type: 'STRING', nullable: false },
  { name: 'file_name', type: 'STRING', nullable: false },
  { name: 'image_filename', type: 'STRING', nullable: false },
  { name: 'original_path', type: 'STRING', nullable: false },
  { name: 'source_kind', type: 'STRING', nullable: true },
  { name: 'source_location', type: 'STRING', nullable: true },
  { name: 'sha256', type: 'STRING', nullable: false },
  { name: 'size_bytes', type: 'INT64', nullable: true },
  { name: 'format', type: 'STRING', nullable: true },
  { name: 'width', type: 'INT32', nullable: true },
  { name: 'height', type: 'INT32', nullable: true },
  { name: 'duration_ms', type: 'INT32', nullable: true },
  { name: 'video_id', type: 'STRING', nullable: true },
  { name: 'frame_index', type: 'INT32', nullable: true },
  { name: 'frame_time_ms', type: 'INT32', nullable: true },
  { name: 'cluster_id_0', type: 'STRING', nullable: true },
  { name: 'cluster_id_1', type: 'STRING', nullable: true },
  { name: 'cluster_id_2', type: 'STRING', nullable: true },
  { name: 'cluster_id_3', type: 'STRING', nullable: true },
  { name: 'cluster_id_4', type: 'STRING', nullable: true },
  { name: 'uniqueness_score', type: 'DOUBLE', nullable: true },
  { name: 'duplicate_of', type: 'STRING', nullable: true },
  { name: 'similarity', type: 'DOUBLE', nullable: true },
  { name: 'issues', type: 'JSON', nullable: false },
  { name: 'labels', type: 'JSON', nullable: false },
  { name: 'tags', type: 'JSON', nullable: false },
  { name: 'caption', type: 'STRING', nullable: true },
  { name: 'objects', type: 'JSON', nullable: false },
  { name: 'custom_metadata', type: 'JSON', nullable: true },
  { name: 'created_at', type: 'TIMESTAMP', nullable: false },
];

/** Rows per row group: large enough for readers to scan fast, small enough to hold one group in memory. */
const PARQUET_ROW_GROUP = 10_000;

function parquetValue(record: ExportRecord, column: (typeof PARQUET_COLUMNS)[number]): unknown {
  const value = record[column.name];
  if (column.type === 'TIMESTAMP') return new Date(value as string);
  if (column.type === 'INT64') return value === null ? null : BigInt(value as number);
  return value;
}

/** hyparquet-writer's buffer, emptied into `out` after each row group (ParquetWriter awaits the flush). */
class StreamingByteWriter extends ByteWriter {
  constructor(private readonly out: Writable) {
    super();
  }

  async flush(): Promise<void> {
    const chunk = Buffer.from(new Uint8Array(this.buffer, 0, this.index));
    this.index = 0;
    if (chunk.length > 0) await send(this.out, chunk);
  }

  finish(): Promise<void> {
    return this.flush();
  }
}

/**
 * metadata.parquet: a row group per PARQUET_ROW_GROUP records; each group's bytes go to the stream
 * as soon as it is encoded, so only one group is ever held.
 */
function parquetWriter(out: Writable): MetadataWriter {
  const bytes = new StreamingByteWriter(out);
  const schema = schemaFromColumnData({
    columnData: PARQUET_COLUMNS.map((column) => ({ name: column.name, data: [], type: column.type, nullable: column.nullable })),
  });
  const parquet = new ParquetWriter({ writer: bytes, schema, createdBy: 'media-dataset-service' });
  let pending: ExportRecord[] = [];
  const writeGroup = async (records: ExportRecord[]) => {
    const columnData = PARQUET_COLUMNS.map((column) => ({
      name: column.name,
      data: records.map((record) => parquetValue(record, column)),
    }));
    await parquet.write({ columnData, rowGroupSize: PARQUET_ROW_GROUP });
  };
  return {
    fileName: METADATA_FILE_NAMES.parquet,
    async write(records) {
      pending.push(...records);
      while (pending.length >= PARQUET_ROW_GROUP) {
        await writeGroup(pending.slice(0, PARQUET_ROW_GROUP));
        pending = pending.slice(PARQUET_ROW_GROUP);
      }
    },
    async finish() {
      if (pending.length > 0) await writeGroup(pending);
      pending = [];
      await parquet.finish();
      await end(out);
    },
    abort: () => undefined,
  };
}

/**
 * annotations.json in the COCO detection format (pycocotools, FiftyOne, CVAT): images are the
 * decodable images and video frames; categories are the labels; each label of an image is an
 * annotation whose box is the whole image (`attributes.image_level`), each detected object one with
 * its own box. Images stream straight out; annotations wait in `scratchFile` until the images are done.
 */
function cocoWriter(out: Writable, context: MetadataContext): MetadataWriter {
  const annotations = fs.createWriteStream(context.scratchFile);
  const categories = new Map<string, number>();
  let imageCount = 0;
  let annotationCount = 0;
  const categoryOf = (label: string) => {
    let id = categories.get(label);
    if (id === undefined) {
      id = categories.size + 1;
      categories.set(label, id);
    }
    return id;
  };
  const info = {
    description: `Export of ${context.datasetName}`,
    version: '1.0',
    year: context.exportedAt.getUTCFullYear(),
    contributor: 'media dataset service',
    url: '',
    date_created: context.exportedAt.toISOString(),
  };
  let started = false;
  const start = async () => {
    if (started) return;
    started = true;
    await send(out, `{"info":${JSON.stringify(info)},\n"licenses":[],\n"images":[`);
  };
  return {
    fileName: METADATA_FILE_NAMES.coco,
    async write(records) {
      await start();
      const images: string[] = [];
      const annotated: string[] = [];
      for (const record of records) {
        if (record.media_type === 'VIDEO' || !record.width || !record.height) continue;
        const { width, height } = record;
        const imageId = ++imageCount;
        images.push(
          JSON.stringify({
            id: imageId,
            file_name: record.image_filename,
            width,
            height,
            media_id: record.media_id,
            ...(record.video_id ? { video_id: record.video_id, frame_index: record.frame_index } : {}),
          }),
        );
        for (const label of record.labels) {
          annotated.push(
            JSON.stringify({
              id: ++annotationCount,
              image_id: imageId,
              category_id: categoryOf(label.label),
              bbox: [0, 0, width, height],
              area: width * height,
              iscrowd: 0,
              attributes: { image_level: true, source: label.source, confidence: label.confidence },
            }),
          );
        }
        for (const object of record.objects) {
          const box = object.bounding_box;
          const bbox = [box.x * width, box.y * height, box.width * width, box.height * height];
          annotated.push(
            JSON.stringify({
              id: ++annotationCount,
              image_id: imageId,
              category_id: categoryOf(object.label),
              bbox,
              area: bbox[2] * bbox[3],
              iscrowd: 0,
              attributes: { image_level: false, confidence: object.confidence },
            }),
          );
        }
      }
      if (images.length > 0) await send(out, `${imageCount === images.length ? '\n' : ',\n'}${images.join(',\n')}`);
      if (annotated.length > 0) {
        await send(annotations, `${annotationCount === annotated.length ? '\n' : ',\n'}${annotated.join(',\n')}`);
      }
    },
    async finish() {
      await start();
      await end(annotations);
      await send(out, '],\n"annotations":[');
      await pipeline(fs.createReadStream(context.scratchFile), out, { end: false });
      const list = [...categories].map(([name, id]) => JSON.stringify({ id, name, supercategory: 'label' }));
      await send(out, `],\n"categories":[${list.length > 0 ? `\n${list.join(',\n')}` : ''}]}\n`);
      await end(out);
    },
    abort: () => annotations.destroy(),
  };
}

/** The writer of `format`'s metadata file into `out`. */
export function createMetadataWriter(format: ExportFormat, out: Writable, context: MetadataContext): MetadataWriter {
  switch (format) {
    case 'json':
      return jsonWriter(out);
    case 'parquet':
      return parquetWriter(out);
    case 'coco':
      return cocoWriter(out, context);
  }
}
