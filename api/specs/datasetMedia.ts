import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { mediaItemSchema } from '../presenters/mediaItem';
import { datasetIdParams } from './common';

export const MEDIA_PAGE_SIZE_MAX = 1000;

const pageQuery = z.object({
  page: z.coerce.number({ message: 'page must be an integer' }).int('page must be an integer').min(1, 'page starts at 1').default(1),
  page_size: z.coerce
    .number({ message: 'page_size must be an integer' })
    .int('page_size must be an integer')
    .min(1, `page_size must be between 1 and ${MEDIA_PAGE_SIZE_MAX}`)
    .max(MEDIA_PAGE_SIZE_MAX, `page_size must be between 1 and ${MEDIA_PAGE_SIZE_MAX}`)
    .default(100),
});

export const datasetMediaRoutes = {
  list: defineRoute({
    method: 'get',
    path: '/dataset/:dataset_id/media',
    tag: 'explore',
    summary: "Every media item of the dataset (images, videos and video frames), a page at a time",
    description:
      'The dataset as it is now, in media id order: pages stay stable while the dataset does not change. ' +
      'A page past the last is empty. GET …/media/{media_id} has an item’s caption, labels, tags and issues.',
    auth: 'user',
    request: { params: datasetIdParams, query: pageQuery },
    responses: {
      200: {
        description: 'A page of media',
        schema: z.object({ media: z.array(mediaItemSchema), total: z.number().int(), page: z.number().int(), page_size: z.number().int() }),
      },
    },
    errors: [403, [404, 'Dataset not found']],
  }),
};
