import { createHmac, timingSafeEqual } from 'node:crypto';

export type MediaVariant = 'file' | 'thumbnail';

/**
 * Media and export links carry an expiring HMAC so `<img src>` and plain downloads work without an
 * Authorization header; a link is only handed out to callers who may read the dataset (or export it).
 */
export function createUrlSigner(secretKey: string, ttlSeconds: number) {
  const key = createHmac('sha256', 'media-url').update(secretKey).digest();
  const sign = (message: string) => createHmac('sha256', key).update(message).digest('base64url');
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
    mediaPath(mediaId: string, variant: MediaVariant, now = Date.now()): string {
      const expires = expiry(now);
      return `/api/v1/media/${mediaId}/${variant}?expires=${expires}&signature=${sign(`${mediaId}:${variant}:${expires}`)}`;
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
