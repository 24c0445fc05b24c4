import { readTable } from '../tables/readTable';
import { MediaSourceError } from './sourceEntry';

export type ManifestFormat = 'txt' | 'csv' | 'parquet';

/** Columns that may hold the media references of a CSV or Parquet manifest, in order of preference. */
const REFERENCE_COLUMNS = ['s3_uri', 'uri', 'url', 'path', 'key', 'file_path', 'file_name', 'filename', 'file'];

export function manifestFormatOf(name: string): ManifestFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.txt')) return 'txt';
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.parquet')) return 'parquet';
  return undefined;
}

/**
 * The media references a manifest lists: one per line of a .txt (blank lines and `#` comments
 * skipped), or the first reference column of a .csv (with a header) or .parquet file — one of
 * REFERENCE_COLUMNS, else the first column.
 */
export async function parseManifest(bytes: Buffer, format: ManifestFormat): Promise<string[]> {
  if (format === 'txt') {
    return bytes
      .toString('utf8')
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#'));
  }
  let rows: Array<Record<string, unknown>>;
  try {
    rows = await readTable(bytes, format);
  } catch (error) {
    throw new MediaSourceError(`cannot read the ${format} manifest: ${(error as Error).message}`);
  }
  if (rows.length === 0) return [];
  const columns = Object.keys(rows[0]);
  const column = REFERENCE_COLUMNS.find((name) => columns.includes(name)) ?? columns[0];
  return rows.map((row) => String(row[column] ?? '').trim()).filter(Boolean);
}
