import type { Readable } from 'node:stream';
import { mediaKindOf } from '../media/mediaTypes';

/** One file of a media source (archive, object-storage folder or manifest, local folder). */
export interface SourceEntry {
  /** The name the media keeps in the dataset: its path relative to the source. */
  name: string;
  /** Its bytes; an archive entry can only be read while it is the current entry. */
  open(): Promise<Readable>;
}

/** The source cannot be read as asked (bad URI, unreadable archive, unsafe path, limits); not worth retrying. */
export class MediaSourceError extends Error {}

/** A file a manifest lists that does not exist; the batch goes on without it and reports it. */
export class MissingEntryError extends MediaSourceError {}

/** The source, or an entry a manifest lists, lies outside what the operator lets the dataset's organization read. */
export class SourceNotAllowedError extends MediaSourceError {
  static outside(what: string): SourceNotAllowedError {
    return new SourceNotAllowedError(
      `${what} is outside the S3 locations this dataset's organization may read: the operator allows S3 sources per organization (S3_SOURCE_POLICY)`,
    );
  }
}

/** Whether one of the first `scanLimit` entries is a supported media file: the quick check before a source is accepted. */
export async function containsMedia(entries: AsyncIterable<SourceEntry>, scanLimit: number): Promise<boolean> {
  let seen = 0;
  for await (const entry of entries) {
    if (mediaKindOf(entry.name)) return true;
    if (++seen >= scanLimit) return false;
  }
  return false;
}
