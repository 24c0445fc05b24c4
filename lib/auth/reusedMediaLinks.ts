import type { MediaVariant, UrlSigner } from './signedUrls';

export type MediaLinks = Pick<UrlSigner, 'mediaPath'>;

/** Links kept at most; past it the memory starts over (one page of Explore signs 2,000). */
const MAX_LINKS = 100_000;

/**
 * Hands out the same signed media link again for a sixtieth of the links' lifetime (a minute of the
 * default hour): a page many clients load is signed once, not once per request, and a browser can
 * cache what a link serves. A link handed out again has at most that much less time left; none
 * lives longer than `ttlSeconds`.
 */
export function reuseMediaLinks(signer: MediaLinks, ttlSeconds: number, now: () => number = Date.now): MediaLinks {
  const reuseMs = (ttlSeconds * 1000) / 60;
  let window = -1;
  let links = new Map<string, string>();
  return {
    mediaPath(mediaId: string, variant: MediaVariant): string {
      const at = now();
      if (Math.floor(at / reuseMs) !== window || links.size >= MAX_LINKS) {
        window = Math.floor(at / reuseMs);
        links = new Map();
      }
      const key = `${variant}:${mediaId}`;
      let link = links.get(key);
      if (link === undefined) {
        link = signer.mediaPath(mediaId, variant, at);
        links.set(key, link);
      }
      return link;
    },
  };
}
