import type { Readable } from 'node:stream';
import type * as Archiver from 'archiver' with { 'resolution-mode': 'import' };

/**
 * A ZIP written as a stream, one entry at a time: `add` resolves once the archive has taken the
 * whole entry in, so only one source is open and read at a time whatever the archive holds.
 * Media files are stored as they are (they are compressed already); metadata is deflated.
 */
export interface ZipWriter {
  /** The archive's bytes, to be consumed (stored) while entries are added. */
  readonly output: Readable;
  add(source: Readable | Buffer, name: string, options: { compress: boolean }): Promise<void>;
  /** Writes the central directory and ends the output. */
  finalize(): Promise<void>;
  /** Stops half way: the output fails with `error`, so nothing partial is kept. */
  destroy(error: Error): void;
}

export function createZipWriter(): ZipWriter {
  // Required at the first export, not when the worker starts. archiver is published as ESM only; Node 20 loads it
  // through require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ZipArchive } = require('archiver') as typeof Archiver;
  const zip = new ZipArchive({ zlib: { level: 6 } });
  let failure: Error | undefined;
  const failed = new Promise<never>((_, reject) => {
    zip.on('error', (error) => {
      failure ??= error;
      reject(error);
    });
  });
  // Observed so an error is never an unhandled rejection while no entry is being added.
  failed.catch(() => undefined);
  // An entry's source fails before archiver hears of it (a missing file): it must fail the archive too.
  const guard = (source: Readable | Buffer) => {
    if (Buffer.isBuffer(source)) return;
    source.once('error', (error) => zip.destroy(error));
  };
  return {
    output: zip,
    async add(source, name, options) {
      if (failure) throw failure;
      guard(source);
      // Entries go in one at a time, so the next entry event is this one's.
      const added = new Promise<void>((resolve) => zip.once('entry', () => resolve()));
      zip.append(source, { name, store: !options.compress });
      await Promise.race([added, failed]);
    },
    async finalize() {
      if (failure) throw failure;
      await Promise.race([zip.finalize(), failed]);
    },
    destroy(error) {
      failure ??= error;
      zip.destroy(error);
    },
  };
}
