import { z } from 'zod';
import { defineRoute } from '../routeSpec';

const mediaParams = z.object({
  media_id: z.uuid('media_id must be a UUID'),
  variant: z.enum(['file', 'thumbnail'], { message: 'variant must be file or thumbnail' }),
});
const signedQuery = z.object({
  expires: z.coerce.number().int().meta({ description: 'Unix time (seconds) the link expires' }),
  signature: z.string().min(1),
});

export const mediaRoutes = {
  content: defineRoute({
    method: 'get',
    path: '/media/:media_id/:variant',
    tag: 'media',
    summary: 'Media bytes behind a signed, expiring link from Explore',
    auth: 'none',
    request: { params: mediaParams, query: signedQuery },
    responses: {
      200: { description: 'The file or its thumbnail (JPEG; WebP for media indexed by earlier versions)', contentType: 'application/octet-stream', schema: z.string().meta({ format: 'binary' }) },
    },
    errors: [[403, 'The link is invalid or has expired'], 404],
  }),
};
