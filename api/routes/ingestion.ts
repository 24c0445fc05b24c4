import fs from 'node:fs';
import { Router } from '@koa/router';
import type { Context } from 'koa';
import type { Db } from '../../db/connection';
import type { Config } from '../../lib/config';
import { isArchiveName, mediaKindOf, SUPPORTED_EXTENSIONS } from '../../lib/media/mediaTypes';
import type { ObjectStore } from '../../lib/storage/objectStore';
import { uploadStagingDir } from '../../lib/storage/staging';
import { newDataset, openTransaction, processFiles, requireOpenTransaction, storeUploads } from '../../services/ingestion';
import type { TaskDeps } from '../../services/taskWorkflows';
import { requireDataset } from '../../services/datasetAccess';
import { HttpError } from '../errors';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { withReceivedFiles, type UploadLimits } from '../uploads';
import { ingestionRoutes, newDatasetQuery, processFilesQuery } from '../specs/ingestion';
import { MAX_LABELS_FILE_BYTES } from '../specs/common';

export function refuseUnsupportedForCreation(fileName: string): HttpError | undefined {
  if (isArchiveName(fileName)) {
    return new HttpError(400, `Archives are not accepted for dataset creation (${fileName}); upload individual files or use add_media`);
  }
  if (!mediaKindOf(fileName)) {
    return new HttpError(400, `Unsupported file type: ${fileName} (supported: ${SUPPORTED_EXTENSIONS.join(', ')})`);
  }
  return undefined;
}

/** The one file part a labels file comes in (labels_from=csv|coco): a .csv or a .json. */
export function checkLabelsPart(fileName: string, field: string): HttpError | undefined {
  if (field === 'labels' && !/\.(csv|json)$/i.test(fileName)) return new HttpError(400, `The labels file must be a .csv or a COCO .json file (got ${fileName})`);
  return undefined;
}

/** The bytes of process_files' `labels` part (labels_from=csv|coco), read whole: it is matched against the transaction's files. */
async function receiveLabelsFile(ctx: Context, stagingDir: string): Promise<Buffer> {
  if (!ctx.is('multipart/form-data')) throw new HttpError(400, 'labels_from=csv or coco needs the labels file as a multipart file part named "labels"');
  const options = { fields: ['labels'], stagingDir, limits: { maxFiles: 1, maxFileBytes: MAX_LABELS_FILE_BYTES }, check: checkLabelsPart };
  return withReceivedFiles(ctx, options, async ({ files }) => {
    if (files.length !== 1) throw new HttpError(400, 'labels_from=csv or coco needs the labels file as a multipart file part named "labels"');
    return fs.promises.readFile(files[0].path);
  });
}

export function createIngestionRouter(deps: TaskDeps & { db: Db; store: ObjectStore; config: Config; uploadLimits: UploadLimits }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, ingestionRoutes.newDataset, async (ctx) => {
    // Missing parameters are 400 here, as the spec's ingestion codes say.
    const parsed = newDatasetQuery.safeParse(ctx.query);
    if (!parsed.success) throw new HttpError(400, parsed.error.issues[0].message);
    ctx.body = { dataset_id: await newDataset(deps.db, ctx.state.user, parsed.data.dataset_name) };
  });

  mount(router, ingestionRoutes.openTransaction, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id, 'upload');
    ctx.body = { trans_id: await openTransaction(deps.db, dataset, ctx.state.user) };
  });

  mount(router, ingestionRoutes.uploadFiles, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'upload');
    const transaction = await requireOpenTransaction(deps.db, dataset, params.transaction_id);
    const options = { fields: ['files'], stagingDir: uploadStagingDir(deps.config), limits: deps.uploadLimits, check: refuseUnsupportedForCreation };
    const fileNames = await withReceivedFiles(ctx, options, async ({ files }) => {
      if (files.length === 0) throw new HttpError(400, 'No files: send one or more file parts named "files"');
      await storeUploads(deps.db, deps.store, transaction, files);
      return files.map((file) => file.fileName);
    });
    ctx.status = 202;
    ctx.body = { trans_id: transaction.id, files: fileNames };
  });

  mount(router, ingestionRoutes.processFiles, async (ctx) => {
    const { params } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'upload');
    const transaction = await requireOpenTransaction(deps.db, dataset, params.transaction_id);
    const parsed = processFilesQuery.safeParse(ctx.query);
    if (!parsed.success) throw new HttpError(400, parsed.error.issues[0].message);
    const { labels_from: labelsFrom, label_field: labelField } = parsed.data;
    const file = labelsFrom === 'csv' || labelsFrom === 'coco' ? await receiveLabelsFile(ctx, uploadStagingDir(deps.config)) : undefined;
    const labels = labelsFrom ? { from: labelsFrom, field: labelField ?? null, file } : null;
    const taskId = await processFiles(deps, dataset, transaction, ctx.state.user, labels);
    ctx.status = 202;
    ctx.body = { task_id: taskId };
  });

  return router;
}
