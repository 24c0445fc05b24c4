import type { Writable } from 'node:stream';
import type * as HyparquetWriter from 'hyparquet-writer' with { 'resolution-mode': 'import' };
import { end, send } from './streams';

/**
 * hyparquet-writer, required at the first Parquet export instead of when a process starts. It is published as ESM
 * only; Node 20 loads it through require().
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const writerLibrary = () => require('hyparquet-writer') as typeof HyparquetWriter;

export type ParquetType = 'STRING' | 'JSON' | 'INT32' | 'INT64' | 'DOUBLE' | 'TIMESTAMP';
export type SchemaElement = ReturnType<typeof HyparquetWriter.schemaFromColumnData>[number];

/** The schema of flat columns of these types (the root element first). */
export function flatSchema(columns: ReadonlyArray<{ name: string; type: ParquetType; nullable: boolean }>): SchemaElement[] {
  return writerLibrary().schemaFromColumnData({ columnData: columns.map((column) => ({ name: column.name, data: [], type: column.type, nullable: column.nullable })) });
}

/** hyparquet-writer's buffer, emptied into `out` after each row group (ParquetWriter awaits the flush). */
function streamingByteWriter(out: Writable) {
  return new (class StreamingByteWriter extends writerLibrary().ByteWriter {
    async flush(): Promise<void> {
      const chunk = Buffer.from(new Uint8Array(this.buffer, 0, this.index));
      this.index = 0;
      if (chunk.length > 0) await send(out, chunk);
    }

    finish(): Promise<void> {
      return this.flush();
    }
  })();
}

export interface ParquetStreamOptions {
  /** The root element, then the columns (nested ones with their children). */
  schema: SchemaElement[];
  /** The top-level columns, in schema order. */
  columns: string[];
  /** A row group is written once it holds this many rows … */
  groupRows: number;
  /** … or this many bytes of the rows' sizes as `add` was told them (images). */
  groupBytes: number;
  kvMetadata?: Array<{ key: string; value: string }>;
}

/**
 * A Parquet file written into `out` a row group at a time: rows wait until a group is full, and each
 * group's bytes go to the stream as soon as it is encoded, so only one group is ever held.
 */
export function parquetStream(out: Writable, options: ParquetStreamOptions) {
  const parquet = new (writerLibrary().ParquetWriter)({
    writer: streamingByteWriter(out),
    schema: options.schema,
    kvMetadata: options.kvMetadata,
    createdBy: 'media-dataset-service',
  });
  let pending: Array<Record<string, unknown>> = [];
  let pendingBytes = 0;
  const writeGroup = async () => {
    if (pending.length === 0) return;
    const columnData = options.columns.map((name) => ({ name, data: pending.map((row) => row[name]) }));
    const rowGroupSize = pending.length;
    pending = [];
    pendingBytes = 0;
    await parquet.write({ columnData, rowGroupSize });
  };
  return {
    /** Adds a row (values by column name) of about `bytes` bytes. */
    async add(row: Record<string, unknown>, bytes = 0): Promise<void> {
      pending.push(row);
      pendingBytes += bytes;
      if (pending.length >= options.groupRows || pendingBytes >= options.groupBytes) await writeGroup();
    },
    /** Writes what is left and the footer, and ends the stream. */
    async finish(): Promise<void> {
      await writeGroup();
      await parquet.finish();
      await end(out);
    },
  };
}
