import { createHmac, timingSafeEqual } from 'node:crypto';

export type MediaVariant = 'file' | 'thumbnail';

/** Media link signatures remembered, in each of two generations (about 150 bytes each). */
const REMEMBERED_SIGNATURES = 50_000;

/**
 * Media and export links carry an expiring HMAC so `<img src>` and plain downloads work without an
 * Authorization header; a link is only handed out to callers who may read the dataset (or export it).
 */
export function createUrlSigner(secretKey: string, ttlSeconds: number) {
  const key = createHmac('sha256', 'media-url').update(secretKey).digest();
  const sign = (message: string) => createHmac('sha256', key).update(message).digest('base64url');
  // A page of Explore signs two links for each of up to 1,000 previews, and the same previews come back page after
  // page: remembered, as their expiries repeat for a quarter of the lifetime (the HMACs were a tenth of the API's CPU
  // under load). Two generations, the older dropped whole when the newer is full: evicting the oldest key of one Map
  // one at a time walked over every key deleted before it (V8 compacts a Map only when it grows).
  let signatures = new Map<string, string>();
  let older = new Map<string, string>();
  const signMedia = (message: string) => {
    let signature = signatures.get(message);
    if (signature === undefined) {
      signature = older.get(message) ?? sign(message);
      if (signatures.size >= REMEMBERED_SIGNATURES) [older, signatures] = [signatures, new Map()];
      signatures.set(message, signature);
    }
    return signature;
  };
  // Expiries are rounded up to a quarter of the lifetime, so every link to an item made within that
  // window is the same URL and browsers reuse the thumbnails they cached (a link lives ttl to 1.25 ttl).
  const step = Math.max(1, Math.floor(ttlSeconds / 4));
  const expiry = (now: number) => Math.ceil((Math.floor(now / 1000) + ttlSeconds) / step) * step;
  const verify = (message: string, expires: number, signature: string, now: number) => {
    if (!Number.isInteger(expires) || expires < Math.floor(now / 1000)) return false;
    const expected = Buffer.from(sign(message));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  };
  // An export's message starts with `export:`, a media item's with its id: one can never pass for the other.
  const exportMessage = (taskId: string, expires: number) => `export:${taskId}:${expires}`;
  return {
    /** How long a link lives at least, in seconds. */
    ttlSeconds,
    /** The expiry every link made at `now` carries: links made while it is the same are the same. */
    linkExpiry: (now = Date.now()) => expiry(now),
    mediaPath(mediaId: string, variant: MediaVariant, now = Date.now()): string {
      const expires = expiry(now);
      return `/api/v1/media/${mediaId}/${variant}?expires=${expires}&signature=${signMedia(`${mediaId}:${variant}:${expires}`)}`;
    },
    verify(mediaId: string, variant: MediaVariant, expires: number, signature: string, now = Date.now()): boolean {
      return verify(`${mediaId}:${variant}:${expires}`, expires, signature, now);
    },
    /** The download link of an export's archive, named after it so a plain download keeps the name. */
    exportPath(taskId: string, fileName: string, now = Date.now()): string {
      const expires = expiry(now);
      return `/api/v1/exports/${taskId}/${encodeURIComponent(fileName)}?expires=${expires}&signature=${sign(exportMessage(taskId, expires))}`;
    },
    verifyExport(taskId: string, expires: number, signature: string, now = Date.now()): boolean {
      return verify(exportMessage(taskId, expires), expires, signature, now);
    },
  };
}

export type UrlSigner = ReturnType<typeof createUrlSigner>;
