import { Readable } from 'node:stream';
import type { Db } from '../db/connection';
import type { DatasetRow } from '../db/repositories/datasets';
import { findMediaContent, listVersionMedia, mediaFacts, type MediaFactsRow } from '../db/repositories/media';
import type { MediaVariant, UrlSigner } from '../lib/auth/signedUrls';
import { forbidden, notFound } from '../lib/errors';
import { contentTypeOf } from '../lib/media/mediaTypes';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';

export interface SignedMediaLink {
  mediaId: string;
  variant: MediaVariant;
  expires: number;
  signature: string;
}

/** The bytes behind a signed, expiring media link (the file, or its thumbnail). */
export async function openSignedMedia(
  deps: { db: Db; store: ObjectStore; signer: UrlSigner },
  link: SignedMediaLink,
): Promise<{ contentType: string; stream: Readable }> {
  if (!deps.signer.verify(link.mediaId, link.variant, link.expires, link.signature)) {
    throw forbidden('This media link is invalid or has expired');
  }
  const media = await findMediaContent(deps.db, link.mediaId);
  const sha256 = link.variant === 'thumbnail' ? media?.thumb_sha256 : media?.blob_sha256;
  if (!media || !sha256) throw notFound('Media not found');
  if (link.variant === 'file') return { contentType: contentTypeOf(media.file_name, media.kind), stream: await deps.store.getStream(blobKey(sha256)) };
  const thumbnail = await deps.store.get(blobKey(sha256));
  return { contentType: thumbnailContentType(thumbnail), stream: Readable.from([thumbnail]) };
}

/** Thumbnails are JPEG; those made before that are WebP ("RIFF", size, "WEBP"), and stay valid. */
function thumbnailContentType(bytes: Buffer): string {
  return bytes.subarray(8, 12).toString('latin1') === 'WEBP' ? 'image/webp' : 'image/jpeg';
}

/** One image or video of the dataset as it is now, with its caption, labels, tags and quality issues. */
export async function describeMedia(db: Db, dataset: DatasetRow, mediaId: string): Promise<MediaFactsRow> {
  const facts = await mediaFacts(db, dataset.head_version_id, mediaId);
  if (!facts) throw notFound('Media not found');
  return facts;
}

/** A page of the dataset's media as it is now (images, videos and video frames), in a stable order. */
export function listDatasetMedia(db: Db, dataset: DatasetRow, page: { page: number; pageSize: number }) {
  return listVersionMedia(db, dataset.head_version_id, { offset: (page.page - 1) * page.pageSize, limit: page.pageSize });
}
