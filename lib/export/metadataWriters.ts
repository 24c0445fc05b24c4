import type { Writable } from 'node:stream';
import { cocoWriter } from './cocoWriter';
import { FORMAT_LAYOUTS, type ExportFormat, type ExportRecord } from './exportRecord';
import { huggingFaceWriter } from './huggingFaceWriter';
import { imageFolderWriter } from './imageFolderWriter';
import { flatSchema, parquetStream, type ParquetType } from './parquetStream';
import { end, send } from './streams';
import type { MetadataContext, MetadataWriter } from './writer';
import { yoloWriter } from './yoloWriter';

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
    case 'imagefolder':
      return imageFolderWriter(out, context);
  }
}
