import { Router } from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/connection';
import type { Config } from '../../lib/config';
import { mediaKindOf } from '../../lib/media/mediaTypes';
import type { ObjectStore } from '../../lib/storage/objectStore';
import { uploadStagingDir } from '../../lib/storage/staging';
import { createUploadAnchor } from '../../services/visualSearch';
import { requireDataset } from '../../services/datasetAccess';
import { HttpError } from '../errors';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { withReceivedFiles } from '../uploads';
import { exploreRoutes } from '../specs/explore';

export function createVisualSearchRouter(deps: { db: Db; store: ObjectStore; temporal: Client; config: Config }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, exploreRoutes.uploadAnchor, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id);
    const anchorId = await withReceivedFiles(
      ctx,
      {
        fields: ['file'],
        stagingDir: uploadStagingDir(deps.config),
        limits: { maxFileBytes: deps.config.uploads.maxFileBytes, maxFiles: 1 },
        check: (fileName) => (mediaKindOf(fileName) === 'IMAGE' ? undefined : new HttpError(400, `The query must be an image file (got ${fileName})`)),
      },
      async ({ files }) => {
        if (files.length === 0) throw new HttpError(400, 'file is required: send the query image as the multipart field "file"');
        const anchorDeps = { ...deps, taskQueue: deps.config.temporal.taskQueue };
        return createUploadAnchor(anchorDeps, dataset, ctx.state.user, files[0], query.bounding_box ?? null, query.threshold ?? null);
      },
    );
    ctx.body = { anchor_media_id: anchorId, anchor_type: 'UPLOAD' };
  });

  return router;
}
