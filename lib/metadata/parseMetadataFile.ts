import { readTable } from '../tables/readTable';

export type MetadataFormat = 'json' | 'csv' | 'parquet';

export interface MetadataRecord {
  /** How the row names its media: a file name of the dataset or a media id. */
  fileName?: string;
  mediaId?: string;
  caption?: string;
  labels?: string[];
  fields: Record<string, unknown>;
}

export class MetadataFileError extends Error {}

export function metadataFormatOf(fileName: string): MetadataFormat | undefined {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.csv')) return 'csv';
  if (lower.endsWith('.parquet')) return 'parquet';
  return undefined;
}

/** Labels come as an array, a JSON array string, or a string separated by `|`, `;` or `,`. */
function toLabels(value: unknown): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value)) return value.map(String).map((label) => label.trim()).filter(Boolean);
  const text = String(value).trim();
  if (text.startsWith('[')) {
    try {
      return toLabels(JSON.parse(text));
    } catch {
      // not JSON after all: split it below
    }
  }
  return text.split(/[|;,]/).map((label) => label.trim()).filter(Boolean);
}

function toRecord(row: Record<string, unknown>, index: number): MetadataRecord {
  const { file_name: fileName, media_id: mediaId, caption, labels, ...fields } = row;
  if (!fileName && !mediaId) throw new MetadataFileError(`row ${index + 1}: needs file_name or media_id`);
  return {
    fileName: fileName ? String(fileName) : undefined,
    mediaId: mediaId ? String(mediaId) : undefined,
    caption: caption === undefined || caption === null || caption === '' ? undefined : String(caption),
    labels: toLabels(labels),
    // BigInt (Parquet INT64) does not survive JSON.
    fields: Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, typeof value === 'bigint' ? Number(value) : value])),
  };
}

/** Rows of a JSON array, a CSV with a header, or a Parquet file, each naming a media item. */
export async function parseMetadataFile(bytes: Buffer, format: MetadataFormat): Promise<MetadataRecord[]> {
  let rows: Array<Record<string, unknown>>;
  try {
    if (format === 'json') {
      const parsed = JSON.parse(bytes.toString('utf8'));
      if (!Array.isArray(parsed)) throw new MetadataFileError('a JSON metadata file must be an array of objects');
      rows = parsed;
    } else {
      rows = await readTable(bytes, format);
    }
  } catch (error) {
    if (error instanceof MetadataFileError) throw error;
    throw new MetadataFileError(`cannot read the ${format} file: ${(error as Error).message}`);
  }
  return rows.map((row, index) => {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) throw new MetadataFileError(`row ${index + 1}: not an object`);
    return toRecord(row, index);
  });
}
