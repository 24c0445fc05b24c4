import { createHmac, timingSafeEqual } from 'node:crypto';

export type MediaVariant = 'file' | 'thumbnail';

/**
 * Media links carry an expiring HMAC so `<img src>` and plain downloads work without an
 * Authorization header; the link is only handed out to callers who may read the dataset.
 */
export function createUrlSigner(secretKey: string, ttlSeconds: number) {
  const key = createHmac('sha256', 'media-url').update(secretKey).digest();
  const sign = (mediaId: string, variant: MediaVariant, expires: number) =>
    createHmac('sha256', key).update(`${mediaId}:${variant}:${expires}`).digest('base64url');
  return {
    mediaPath(mediaId: string, variant: MediaVariant, now = Date.now()): string {
      const expires = Math.floor(now / 1000) + ttlSeconds;
      return `/api/v1/media/${mediaId}/${variant}?expires=${expires}&signature=${sign(mediaId, variant, expires)}`;
    },
    verify(mediaId: string, variant: MediaVariant, expires: number, signature: string, now = Date.now()): boolean {
      if (!Number.isInteger(expires) || expires < Math.floor(now / 1000)) return false;
      const expected = Buffer.from(sign(mediaId, variant, expires));
      const given = Buffer.from(signature);
      return expected.length === given.length && timingSafeEqual(expected, given);
    },
  };
}

export type UrlSigner = ReturnType<typeof createUrlSigner>;
