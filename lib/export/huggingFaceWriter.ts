import type { Writable } from 'node:stream';
import { isAnnotatableImage } from './boxes';
import { FORMAT_LAYOUTS, type ExportRecord } from './exportRecord';
import type { MetadataContext, MetadataWriter } from './metadataWriters';
import { flatSchema, parquetStream, type ParquetType } from './parquetStream';
import { toYaml } from './yamlText';

/** Rows per row group, and the image bytes after which a group is written whatever its rows (what is held in memory). */
const GROUP_ROWS = 1000;
const GROUP_BYTES = 64 * 2 ** 20;

type Column = { name: keyof ExportRecord; type: ParquetType; nullable: boolean };

/** The `datasets` feature of each column type here: lists, objects and timestamps are strings (JSON, ISO 8601). */
const FEATURE_DTYPES: Record<'STRING' | 'INT32' | 'INT64' | 'DOUBLE', string> = { STRING: 'string', INT32: 'int32', INT64: 'int64', DOUBLE: 'float64' };

const asHuggingFace = (column: Column) => ({ ...column, type: column.type === 'JSON' || column.type === 'TIMESTAMP' ? ('STRING' as const) : column.type });

function value(record: ExportRecord, column: Column): unknown {
  const field = record[column.name];
  if (column.type === 'JSON') return field === null ? null : JSON.stringify(field);
  if (column.type === 'INT64') return field === null ? null : BigInt(field as number);
  return field;
}

/** Text as Markdown that renders as that text: ASCII punctuation backslash-escaped (CommonMark), line breaks and controls as spaces. */
export function markdownText(text: string): string {
  return text.replace(/[\p{Cc}\p{Zl}\p{Zp}\s]+/gu, ' ').trim().replace(/[!-/:-@[-`{-~]/g, (char) => `\\${char}`);
}

/**
 * The dataset card: its YAML front matter (written by the YAML serializer: the name as `pretty_name`, and
 * which files make the train split, so `load_dataset` on the unpacked folder finds them), then a Markdown
 * body where the name is escaped text.
 */
function datasetCard(context: MetadataContext, rows: number): string {
  const frontMatter = toYaml({
    pretty_name: context.datasetName,
    configs: [{ config_name: 'default', data_files: [{ split: 'train', path: 'data/train-*.parquet' }] }],
  });
  return [
    '---',
    frontMatter.trimEnd(),
    '---',
    '',
    `# ${markdownText(context.datasetName) || 'Dataset'}`,
    '',
    `Exported by the media dataset service at ${context.exportedAt.toISOString()}: ${rows} media in \`data/\`, one row each.`,
    'The `image` column holds each image and video frame (an `Image` feature: its bytes and its name);',
    'it is empty for videos. Lists and objects (labels, objects, issues, tags, custom_metadata) are JSON strings.',
    '',
  ].join('\n');
}

/**
 * The Hugging Face `datasets` layout: data/train-00000-of-00001.parquet with an `image` column in the
 * Image feature's storage ({bytes, path}) followed by the metadata columns, the features under the
 * `huggingface` key of the Parquet metadata (so `load_dataset("parquet", …)` types `image` as Image),
 * and a README.md dataset card. Row groups are written every GROUP_ROWS rows or GROUP_BYTES of images.
 */
export function huggingFaceWriter(out: Writable, context: MetadataContext, columns: readonly Column[]): MetadataWriter {
  const flat = flatSchema(columns.map(asHuggingFace));
  const schema = [
    { ...flat[0], num_children: columns.length + 1 },
    { name: 'image', repetition_type: 'OPTIONAL' as const, num_children: 2 },
    { name: 'bytes', type: 'BYTE_ARRAY' as const, repetition_type: 'OPTIONAL' as const },
    { name: 'path', type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'OPTIONAL' as const },
    ...flat.slice(1),
  ];
  const features = {
    image: { _type: 'Image' },
    ...Object.fromEntries(columns.map((column) => [column.name, { dtype: FEATURE_DTYPES[asHuggingFace(column).type as keyof typeof FEATURE_DTYPES], _type: 'Value' }])),
  };
  const parquet = parquetStream(out, {
    schema,
    columns: ['image', ...columns.map((column) => column.name)],
    groupRows: GROUP_ROWS,
    groupBytes: GROUP_BYTES,
    kvMetadata: [{ key: 'huggingface', value: JSON.stringify({ info: { features } }) }],
  });
  let rows = 0;
  return {
    fileName: FORMAT_LAYOUTS.hf.fileName,
    async write(records) {
      for (const record of records) {
        const bytes = isAnnotatableImage(record) ? await context.readBytes(record) : null;
        const image = bytes ? { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), path: record.image_filename } : null;
        await parquet.add({ image, ...Object.fromEntries(columns.map((column) => [column.name, value(record, column)])) }, bytes?.length ?? 0);
        rows++;
      }
    },
    async finish() {
      await parquet.finish();
      await context.addEntry('README.md', Buffer.from(datasetCard(context, rows), 'utf8'));
    },
    abort: () => undefined,
  };
}
