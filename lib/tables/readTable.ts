import { parse as parseCsv } from 'csv-parse/sync';
import type * as Hyparquet from 'hyparquet' with { 'resolution-mode': 'import' };

export type TableFormat = 'csv' | 'parquet';

/** Rows of a CSV file with a header row, or of a Parquet file, as objects keyed by column. */
export async function readTable(bytes: Buffer, format: TableFormat): Promise<Array<Record<string, unknown>>> {
  if (format === 'csv') return parseCsv(bytes, { columns: true, skip_empty_lines: true, trim: true, bom: true });
  // Required at the first Parquet file. hyparquet is published as ESM only; Node 20 loads it through require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parquetReadObjects } = require('hyparquet') as typeof Hyparquet;
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return (await parquetReadObjects({ file: buffer })) as Array<Record<string, unknown>>;
}
