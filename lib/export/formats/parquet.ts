import type { Writable } from 'node:stream';
import type { ExportRecord } from '../exportRecord';
import { flatSchema, parquetStream, type ParquetType } from '../parquetStream';
import type { MetadataWriter } from '../writer';
import { defineExportFormat } from './defineExportFormat';

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
    async write(records) {
      for (const record of records) {
        await parquet.add(Object.fromEntries(PARQUET_COLUMNS.map((column) => [column.name, parquetValue(record, column)])));
      }
    },
    finish: () => parquet.finish(),
    abort: () => undefined,
  };
}

export const parquetFormat = defineExportFormat({
  name: 'parquet',
  title: 'Parquet',
  description: 'metadata.parquet',
  layout: { fileName: 'metadata.parquet', imagesFolder: 'asked', ownEntries: false },
  needsLabelField: false,
  writer: parquetWriter,
});
