import type { Readable } from 'node:stream';
import type { ExportRecord } from './exportRecord';
import type { UserClasses } from './userClasses';

/** An archive the format cannot hold as asked; the export fails with this message (retrying cannot help). */
export class UnexportableError extends Error {}

/** Writes the metadata file of an export, a page of records at a time, into a stream it ends itself. */
export interface MetadataWriter {
  write(records: ExportRecord[]): Promise<void>;
  /** Writes what is left and ends the stream. */
  finish(): Promise<void>;
  /** Lets go of what it holds open when the export stops half way (the caller destroys the stream). */
  abort(): void;
  /**
   * Where a record's bytes go in an archive that carries an images folder; null leaves them out.
   * Absent: `images/<image_filename>`.
   */
  imageEntry?(record: ExportRecord): string | null;
}

export interface MetadataContext {
  datasetName: string;
  exportedAt: Date;
  /** The user's classes (the version's declared label field) and splits; null when the version declares no label field. */
  classes: UserClasses | null;
  /** A file of its own a writer may keep parts in until it finishes (`name` is a plain file name); the caller removes them. */
  scratchPath(name: string): string;
  /**
   * Adds an entry of the format's own to the archive (YOLO's label files, the Parquet files of hf); resolves once
   * taken. Deflated unless `compress` is false (content that holds compressed media already).
   */
  addEntry(name: string, content: Buffer | Readable, options?: { compress: boolean }): Promise<void>;
  /** The stored bytes of a record's file (hf holds the images in its Parquet). */
  readBytes(record: ExportRecord): Promise<Buffer>;
}
