import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import type { Config } from '../../lib/config';
import { metadataFormatOf } from '../../lib/metadata/parseMetadataFile';
import type { ObjectStore } from '../../lib/storage/objectStore';
import { uploadStagingDir } from '../../lib/storage/staging';
import { importCustomMetadata } from '../../services/customMetadata';
import type { TaskDeps } from '../../services/taskWorkflows';
import { requireDataset } from '../../services/datasetAccess';
import { HttpError } from '../errors';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { withReceivedFiles } from '../uploads';
import { customMetadataRoutes } from '../specs/customMetadata';

/** Custom metadata import (spec-silent; see docs/decisions.md): multipart `file` → 202 {task_id}. */
export function createCustomMetadataRouter(deps: TaskDeps & { store: ObjectStore; config: Config; db: Db }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, customMetadataRoutes.import, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id, 'import_metadata');
    const taskId = await withReceivedFiles(
      ctx,
      {
        fields: ['file'],
        stagingDir: uploadStagingDir(deps.config),
        limits: { maxFileBytes: deps.config.uploads.maxFileBytes, maxFiles: 1 },
        check: (fileName) =>
          metadataFormatOf(fileName) ? undefined : new HttpError(400, `Metadata must be a .json, .csv or .parquet file (got ${fileName})`),
      },
      async ({ files }) => {
        if (files.length === 0) throw new HttpError(400, 'file is required: send the metadata file as the multipart field "file"');
        return importCustomMetadata(deps, dataset, ctx.state.user, files[0]);
      },
    );
    ctx.status = 202;
    ctx.body = { task_id: taskId };
  });

  return router;
}
