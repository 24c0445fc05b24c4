import { Router } from '@koa/router';
import { z } from 'zod';
import type { Db } from '../../db/connection';
import type { Config } from '../../lib/config';
import { isArchiveName, mediaKindOf, SUPPORTED_EXTENSIONS } from '../../lib/media/mediaTypes';
import type { ObjectStore } from '../../lib/storage/objectStore';
import { newDataset, openTransaction, processFiles, requireOpenTransaction, storeUploads } from '../../services/ingestion';
import type { TaskDeps } from '../../services/taskWorkflows';
import { requireDataset } from '../../services/datasetAccess';
import { HttpError } from '../errors';
import { receiveFiles, removeStaged, type UploadLimits } from '../uploads';
import { uploadStagingDir } from '../../lib/storage/staging';
import { validate } from '../middleware/validate';
import { datasetIdParams } from './datasets';

const newDatasetQuery = z.object({
  // The type's own message would otherwise name every failure "required", a too-long name too.
  dataset_name: z
    .string({ error: (issue) => (issue.input === undefined ? 'dataset_name is required' : 'dataset_name must be a single string') })
    .trim()
    .min(1, 'dataset_name is required')
    .max(255, 'dataset_name must be at most 255 characters'),
});
const transactionParams = datasetIdParams.extend({
  transaction_id: z.coerce.number({ message: 'transaction_id must be an integer' }).int('transaction_id must be an integer').positive(),
});

export function refuseUnsupportedForCreation(fileName: string): HttpError | undefined {
  if (isArchiveName(fileName)) {
    return new HttpError(400, `Archives are not accepted for dataset creation (${fileName}); upload individual files or use add_media`);
  }
  if (!mediaKindOf(fileName)) {
    return new HttpError(400, `Unsupported file type: ${fileName} (supported: ${SUPPORTED_EXTENSIONS.join(', ')})`);
  }
  return undefined;
}

export function createIngestionRouter(deps: TaskDeps & { db: Db; store: ObjectStore; config: Config; uploadLimits: UploadLimits }): Router {
  const router = new Router({ prefix: '/ingestion' });

  router.get('/new_dataset', async (ctx) => {
    // Missing parameters are 400 here, as the spec's ingestion codes say.
    const parsed = newDatasetQuery.safeParse(ctx.query);
    if (!parsed.success) throw new HttpError(400, parsed.error.issues[0].message);
    ctx.body = { dataset_id: await newDataset(deps.db, ctx.state.user, parsed.data.dataset_name) };
  });

  router.get('/:dataset_id/data_files', validate({ params: datasetIdParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof datasetIdParams> };
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'upload');
    ctx.body = { trans_id: await openTransaction(deps.db, dataset, ctx.state.user) };
  });

  router.post('/:dataset_id/data_files/:transaction_id', validate({ params: transactionParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof transactionParams> };
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'upload');
    const transaction = await requireOpenTransaction(deps.db, dataset, params.transaction_id);
    const { files } = await receiveFiles(ctx, {
      fields: ['files'],
      stagingDir: uploadStagingDir(deps.config),
      limits: deps.uploadLimits,
      check: refuseUnsupportedForCreation,
    });
    if (files.length === 0) throw new HttpError(400, 'No files: send one or more file parts named "files"');
    try {
      await storeUploads(deps.db, deps.store, transaction, files);
    } finally {
      await removeStaged(files);
    }
    ctx.status = 202;
    ctx.body = { trans_id: transaction.id, files: files.map((file) => file.fileName) };
  });

  router.post('/:dataset_id/process_files/:transaction_id', validate({ params: transactionParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof transactionParams> };
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'upload');
    const transaction = await requireOpenTransaction(deps.db, dataset, params.transaction_id);
    const taskId = await processFiles(deps, dataset, transaction, ctx.state.user);
    ctx.status = 202;
    ctx.body = { task_id: taskId };
  });

  return router;
}
