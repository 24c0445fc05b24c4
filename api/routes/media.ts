import { Router } from '@koa/router';
import { z } from 'zod';
import type { Db } from '../../db/connection';
import type { UrlSigner } from '../../lib/auth/signedUrls';
import { contentTypeOf } from '../../lib/media/mediaTypes';
import { blobKey, type ObjectStore } from '../../lib/storage/objectStore';
import { HttpError } from '../errors';
import { validate } from '../middleware/validate';
import { findMediaContent } from '../../db/repositories/media';

const mediaParams = z.object({
  media_id: z.uuid('media_id must be a UUID'),
  variant: z.enum(['file', 'thumbnail'], { message: 'variant must be file or thumbnail' }),
});
const signedQuery = z.object({
  expires: z.coerce.number().int(),
  signature: z.string().min(1),
});

/** Serves media bytes behind the expiring signed links that Explore hands out. */
export function createMediaRouter(deps: { db: Db; store: ObjectStore; signer: UrlSigner }): Router {
  const router = new Router();

  router.get('/media/:media_id/:variant', validate({ params: mediaParams, query: signedQuery }), async (ctx) => {
    const { params, query } = ctx.state.input as { params: z.output<typeof mediaParams>; query: z.output<typeof signedQuery> };
    if (!deps.signer.verify(params.media_id, params.variant, query.expires, query.signature)) {
      throw new HttpError(403, 'This media link is invalid or has expired');
    }
    const media = await findMediaContent(deps.db, params.media_id);
    const sha256 = params.variant === 'thumbnail' ? media?.thumb_sha256 : media?.blob_sha256;
    if (!media || !sha256) throw new HttpError(404, 'Media not found');
    ctx.type = params.variant === 'thumbnail' ? 'image/webp' : contentTypeOf(media.file_name, media.kind);
    ctx.set('Cache-Control', 'private, max-age=3600, immutable');
    ctx.body = await deps.store.getStream(blobKey(sha256));
  });

  return router;
}
