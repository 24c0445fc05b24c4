import fs from 'node:fs';
import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import type { Config } from '../../lib/config';
import type { Logger } from '../../lib/logger';
import { isArchiveName, mediaKindOf, SUPPORTED_EXTENSIONS } from '../../lib/media/mediaTypes';
import type { ObjectStore } from '../../lib/storage/objectStore';
import { uploadStagingDir } from '../../lib/storage/staging';
import {
  checkAddMediaPreconditions,
  checkS3Source,
  requireAddMediaEnabled,
  startMediaAddition,
  startReindex,
  checkArchive,
  requireLabelsSource,
} from '../../services/mediaAddition';
import type { TaskDeps } from '../../services/taskWorkflows';
import type { BatchSource } from '../../workflows/contracts';
import { requireDataset } from '../../services/datasetAccess';
import { HttpError } from '../errors';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { withReceivedFiles } from '../uploads';
import { MAX_LABELS_FILE_BYTES } from '../specs/common';
import { addMediaFields, mediaAdditionRoutes } from '../specs/mediaAddition';
import { answerAcceptedTask } from './acceptedTask';
import { checkLabelsPart } from './ingestion';

const ONE_SOURCE = 'Exactly one media source must be provided: files[], s3_uri, or archive';

function checkPart(fileName: string, field: string): HttpError | undefined {
  if (field === 'labels') return checkLabelsPart(fileName, field);
  if (field === 'archive' && !isArchiveName(fileName)) return new HttpError(400, `archive must be a .zip, .tar or .tar.gz file (got ${fileName})`);
  if (field === 'files' && !mediaKindOf(fileName)) {
    return new HttpError(400, `Unsupported file type: ${fileName} (supported: ${SUPPORTED_EXTENSIONS.join(', ')}; send archives as "archive")`);
  }
  return undefined;
}

/** add_media and reindex: media batches added to an indexed dataset, and the re-clustering after them. */
export function createMediaAdditionRouter(deps: TaskDeps & { db: Db; store: ObjectStore; config: Config; logger: Logger }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, mediaAdditionRoutes.addMedia, async (ctx) => {
    requireAddMediaEnabled(deps.config);
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id, 'add_media');
    await checkAddMediaPreconditions(deps, dataset);
    const options = { fields: ['files', 'archive', 'labels'], stagingDir: uploadStagingDir(deps.config), limits: deps.config.uploads, check: checkPart };
    let taskId: string | undefined;
    await withReceivedFiles(ctx, options, async ({ files, fields }) => {
      const parsed = addMediaFields.safeParse(fields);
      if (!parsed.success) throw new HttpError(400, parsed.error.issues[0].message);
      const form = parsed.data;
      const uploads = files.filter((file) => file.field === 'files');
      const archives = files.filter((file) => file.field === 'archive');
      const labelFiles = files.filter((file) => file.field === 'labels');
      if (labelFiles.length > 1) throw new HttpError(400, 'Send at most one labels file');
      if (labelFiles.length === 1 && labelFiles[0].size > MAX_LABELS_FILE_BYTES) throw new HttpError(413, `The labels file is larger than ${MAX_LABELS_FILE_BYTES} bytes`);
      if (labelFiles.length === 1 && !form.labels_from) throw new HttpError(400, 'A labels file goes with labels_from=csv or labels_from=coco');
      const sources = [uploads.length > 0, archives.length > 0, form.s3_uri !== undefined].filter(Boolean).length;
      if (sources !== 1 || archives.length > 1) throw new HttpError(400, ONE_SOURCE);
      if (form.assume_role && !form.s3_uri) throw new HttpError(400, 'assume_role applies only to an s3_uri source');

      requireLabelsSource(form.labels_from, archives.length === 1 ? 'archive' : form.s3_uri ? 's3' : 'upload');
      let source: BatchSource = { kind: 'upload' };
      if (archives.length === 1) source = await checkArchive(archives[0]);
      if (form.s3_uri) source = await checkS3Source(deps, dataset, form.s3_uri, form.assume_role);
      taskId = await startMediaAddition(deps, dataset, ctx.state.user, {
        source,
        uploads,
        archive: archives[0],
        autoReindex: form.auto_reindex,
        labels: form.labels_from
          ? { from: form.labels_from, field: form.label_field ?? null, file: labelFiles[0] && (await fs.promises.readFile(labelFiles[0].path)) }
          : null,
        hints: {
          batchNImages: form.batch_n_images,
          batchNVideos: form.batch_n_videos,
          batchNObjects: form.batch_n_objects,
          useSpot: form.use_spot,
        },
      });
    });
    answerAcceptedTask(ctx, taskId!);
  });

  mount(router, mediaAdditionRoutes.reindex, async (ctx) => {
    const dataset = await requireDataset(deps.db, ctx.state.input.params.dataset_id, ctx.state.user.id, 'reindex');
    answerAcceptedTask(ctx, await startReindex(deps, dataset, ctx.state.user));
  });

  return router;
}
