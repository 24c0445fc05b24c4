import fs from 'node:fs';
import type { Writable } from 'node:stream';
import { isAnnotatableImage } from '../boxes';
import type { ExportRecord } from '../exportRecord';
import { flatSchema, parquetStream, type ParquetType } from '../parquetStream';
import { discard, end, send } from '../streams';
import { classOf, MAX_SPLITS, splitOf, Splits } from '../userClasses';
import type { MetadataContext, MetadataWriter } from '../writer';
import { toYaml } from '../yamlText';
import { defineExportFormat } from './defineExportFormat';
import { PARQUET_COLUMNS } from './parquet';

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
 * which files make each split, so `load_dataset` on the unpacked folder finds them), then a Markdown
 * body where the name is escaped text.
 */
function datasetCard(context: MetadataContext, rows: Map<string, number>): string {
  const frontMatter = toYaml({
    pretty_name: context.datasetName,
    configs: [{ config_name: 'default', data_files: [...rows.keys()].map((split) => ({ split, path: `data/${split}-*.parquet` })) }],
  });
  const counts = [...rows].map(([split, count]) => `${count} in ${split}`).join(', ');
  const total = [...rows.values()].reduce((sum, count) => sum + count, 0);
  return [
    '---',
    frontMatter.trimEnd(),
    '---',
    '',
    `# ${markdownText(context.datasetName) || 'Dataset'}`,
    '',
    `Exported by the media dataset service at ${context.exportedAt.toISOString()}: ${total} media in \`data/\` (${counts}), one row each.`,
    'The `image` column holds each image and video frame (an `Image` feature: its bytes and its name);',
    'it is empty for videos. Lists and objects (labels, objects, issues, tags, custom_metadata) are JSON strings.',
    ...(context.classes
      ? ['The `label` column is the class in the label field (a `ClassLabel`; -1 where an item has none); splits come from the split field.']
      : []),
    '',
  ].join('\n');
}

/** The label column with the user's classes: a ClassLabel's storage, int64 (-1: no class); nullable, as `datasets` takes the features of the metadata only for columns whose Arrow field is the feature's own. */
const LABEL_COLUMN = { name: 'label', type: 'INT64' as const, nullable: true };

/**
 * The Hugging Face `datasets` layout: data/<split>-00000-of-00001.parquet per split (train alone
 * without a split field) with an `image` column in the Image feature's storage ({bytes, path}), with
 * the user's classes a `label` column (a ClassLabel naming them), then the metadata columns; the
 * features under the `huggingface` key of the Parquet metadata (so `load_dataset("parquet", …)` types
 * `image` as Image and `label` as ClassLabel), and README.md, the dataset card listing the splits'
 * files. Row groups are written every GROUP_ROWS rows or GROUP_BYTES of images (shared among splits).
 */
function huggingFaceWriter(out: Writable, context: MetadataContext): MetadataWriter {
  const { classes } = context;
  const columns = PARQUET_COLUMNS;
  const flat = flatSchema([...(classes ? [LABEL_COLUMN] : []), ...columns.map(asHuggingFace)]);
  const schema = [
    { ...flat[0], num_children: flat.length },
    { name: 'image', repetition_type: 'OPTIONAL' as const, num_children: 2 },
    { name: 'bytes', type: 'BYTE_ARRAY' as const, repetition_type: 'OPTIONAL' as const },
    { name: 'path', type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'OPTIONAL' as const },
    ...flat.slice(1),
  ];
  const features = {
    image: { _type: 'Image' },
    ...(classes ? { label: { names: classes.names, _type: 'ClassLabel' } } : {}),
    ...Object.fromEntries(columns.map((column) => [column.name, { dtype: FEATURE_DTYPES[asHuggingFace(column).type as keyof typeof FEATURE_DTYPES], _type: 'Value' }])),
  };
  const classIds = new Map(classes?.names.map((name, id) => [name, id]));
  const splits = new Splits();
  const files = new Map<string, { path: string; stream: fs.WriteStream; parquet: ReturnType<typeof parquetStream>; rows: number }>();
  const fileOf = (split: string) => {
    let file = files.get(split);
    if (!file) {
      splits.add(split);
      const filePath = context.scratchPath(`hf-${files.size}.parquet`);
      const stream = fs.createWriteStream(filePath);
      const parquet = parquetStream(stream, {
        schema,
        columns: ['image', ...flat.slice(1).map((element) => element.name)],
        groupRows: GROUP_ROWS,
        groupBytes: classes?.splitField ? GROUP_BYTES / MAX_SPLITS : GROUP_BYTES,
        kvMetadata: [{ key: 'huggingface', value: JSON.stringify({ info: { features } }) }],
      });
      file = { path: filePath, stream, parquet, rows: 0 };
      files.set(split, file);
    }
    return file;
  };
  return {
    async write(records) {
      for (const record of records) {
        const file = fileOf((classes && splitOf(record, classes)) ?? 'train');
        const bytes = isAnnotatableImage(record) ? await context.readBytes(record) : null;
        const image = bytes ? { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length), path: record.image_filename } : null;
        const label = classes ? { label: BigInt(classIds.get(classOf(record, classes) ?? '') ?? -1) } : {};
        await file.parquet.add({ image, ...label, ...Object.fromEntries(columns.map((column) => [column.name, value(record, column)])) }, bytes?.length ?? 0);
        file.rows++;
      }
    },
    async finish() {
      if (files.size === 0) fileOf('train');
      for (const [split, file] of files) {
        await file.parquet.finish();
        // The Parquet holds the JPEG and PNG bytes: deflating them again gains nothing and costs a core.
        await context.addEntry(`data/${split}-00000-of-00001.parquet`, fs.createReadStream(file.path), { compress: false });
      }
      await send(out, datasetCard(context, new Map([...files].map(([split, file]) => [split, file.rows]))));
      await end(out);
    },
    abort() {
      for (const file of files.values()) discard(file.stream);
    },
  };
}

export const huggingFaceFormat = defineExportFormat({
  name: 'hf',
  title: 'Hugging Face datasets',
  description: 'a Hugging Face datasets layout: data/<split>-00000-of-00001.parquet with the images in its image column, and README.md',
  layout: { fileName: 'README.md', imagesFolder: 'never', ownEntries: true },
  needsLabelField: false,
  writer: huggingFaceWriter,
});
