import fs from 'node:fs';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { boxesOf, Categories, isAnnotatableImage } from './boxes';
import { FORMAT_LAYOUTS, type ExportFormat, type ExportRecord } from './exportRecord';
import { huggingFaceWriter } from './huggingFaceWriter';
import { flatSchema, parquetStream, type ParquetType } from './parquetStream';
import { end, send } from './streams';
import { yoloWriter } from './yoloWriter';

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
  /** Adds an entry of the format's own to the archive (YOLO's label files, the dataset card of hf). */
  addEntry(name: string, content: Buffer): Promise<void>;
  /** The stored bytes of a record's file (hf holds the images in its Parquet). */
  readBytes(record: ExportRecord): Promise<Buffer>;
}

/** metadata.json: one JSON array, one record per line. */
function jsonWriter(out: Writable): MetadataWriter {
  let first = true;
  return {
    fileName: FORMAT_LAYOUTS.json.fileName,
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
  { name: 'mislabel_score', type: 'DOUBLE', nullable: true },
  { name: 'suggested_label', type: 'STRING', nullable: true },
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

/** metadata.parquet: a row group per PARQUET_ROW_GROUP records. */
function parquetWriter(out: Writable): MetadataWriter {
  const parquet = parquetStream(out, {
    schema: flatSchema(PARQUET_COLUMNS),
    columns: PARQUET_COLUMNS.map((column) => column.name),
    groupRows: PARQUET_ROW_GROUP,
    groupBytes: Infinity,
  });
  return {
    fileName: FORMAT_LAYOUTS.parquet.fileName,
    async write(records) {
      for (const record of records) {
        await parquet.add(Object.fromEntries(PARQUET_COLUMNS.map((column) => [column.name, parquetValue(record, column)])));
      }
    },
    finish: () => parquet.finish(),
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
  const categories = new Categories(1);
  let imageCount = 0;
  let annotationCount = 0;
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
    fileName: FORMAT_LAYOUTS.coco.fileName,
    async write(records) {
      await start();
      const images: string[] = [];
      const annotated: string[] = [];
      for (const record of records) {
        if (!isAnnotatableImage(record)) continue;
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
        for (const { label, box, imageLevel, source, confidence } of boxesOf(record)) {
          const bbox = [box.x * width, box.y * height, box.width * width, box.height * height];
          annotated.push(
            JSON.stringify({
              id: ++annotationCount,
              image_id: imageId,
              category_id: categories.idOf(label),
              bbox,
              area: bbox[2] * bbox[3],
              iscrowd: 0,
              attributes: imageLevel ? { image_level: true, source, confidence } : { image_level: false, confidence },
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
      const list = categories.entries().map(([name, id]) => JSON.stringify({ id, name, supercategory: 'label' }));
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
    case 'yolo':
      return yoloWriter(out, context);
    case 'hf':
      return huggingFaceWriter(out, context, PARQUET_COLUMNS);
  }
}
