import { Router } from '@koa/router';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import type { Db } from '../../db/connection';
import type { Config } from '../../lib/config';
import { mediaKindOf } from '../../lib/media/mediaTypes';
import type { ObjectStore } from '../../lib/storage/objectStore';
import { createUploadAnchor } from '../../services/visualSearch';
import { requireDataset } from '../../services/datasetAccess';
import { HttpError } from '../errors';
import { validate } from '../middleware/validate';
import { clusteringThreshold, entityType, requireEntityType } from '../searchParams';
import { receiveFiles, removeStaged } from '../uploads';
import { uploadStagingDir } from '../../lib/storage/staging';
import { datasetIdParams } from './datasets';

const fraction = z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1');
const boundingBox = z
  .object({ x: fraction, y: fraction, width: fraction.gt(0, 'must be above 0'), height: fraction.gt(0, 'must be above 0') })
  .refine((box) => box.x + box.width <= 1 + 1e-9 && box.y + box.height <= 1 + 1e-9, 'the box must lie inside the image');

const anchorQuery = z.object({
  entity_type: entityType,
  threshold: clusteringThreshold.optional(),
  bounding_box: z
    .string()
    .transform((raw, ctx) => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'bounding_box must be JSON {x, y, width, height}' });
        return z.NEVER;
      }
    })
    .pipe(boundingBox)
    .optional(),
});

export function createVisualSearchRouter(deps: { db: Db; store: ObjectStore; temporal: Client; config: Config }): Router {
  const router = new Router();

  router.post(
    '/dataset/:dataset_id/search-image-similarity',
    requireEntityType,
    validate({ params: datasetIdParams, query: anchorQuery }),
    async (ctx) => {
      const { params, query } = ctx.state.input as { params: z.output<typeof datasetIdParams>; query: z.output<typeof anchorQuery> };
      const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
      const { files } = await receiveFiles(ctx, {
        fields: ['file'],
        stagingDir: uploadStagingDir(deps.config),
        limits: { maxFileBytes: deps.config.uploads.maxFileBytes, maxFiles: 1 },
        check: (fileName) => (mediaKindOf(fileName) === 'IMAGE' ? undefined : new HttpError(400, `The query must be an image file (got ${fileName})`)),
      });
      if (files.length === 0) throw new HttpError(400, 'file is required: send the query image as the multipart field "file"');
      try {
        const anchorId = await createUploadAnchor(
          { ...deps, taskQueue: deps.config.temporal.taskQueue },
          dataset,
          ctx.state.user,
          files[0],
          query.bounding_box ?? null,
        );
        ctx.body = { anchor_media_id: anchorId, anchor_type: 'UPLOAD' };
      } finally {
        await removeStaged(files);
      }
    },
  );

  return router;
}
