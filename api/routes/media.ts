import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import type { UrlSigner } from '../../lib/auth/signedUrls';
import type { ObjectStore } from '../../lib/storage/objectStore';
import { openSignedMedia } from '../../services/media';
import { mount } from '../routeSpec';
import type { RequestState } from '../state';
import { mediaRoutes } from '../specs/media';

/** Serves media bytes behind the expiring signed links that Explore hands out. */
export function createMediaRouter(deps: { db: Db; store: ObjectStore; signer: UrlSigner }): Router<RequestState> {
  const router = new Router<RequestState>();

  mount(router, mediaRoutes.content, async (ctx) => {
    const { params, query } = ctx.state.input;
    const media = await openSignedMedia(deps, { mediaId: params.media_id, variant: params.variant, expires: query.expires, signature: query.signature });
    ctx.type = media.contentType;
    ctx.set('Cache-Control', 'private, max-age=3600, immutable');
    ctx.body = media.stream;
  });

  return router;
}
