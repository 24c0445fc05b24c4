import { Router } from '@koa/router';
import type { UrlSigner } from '../../lib/auth/signedUrls';
import { carriesImages, EXPORT_FORMAT_MODULES } from '../../lib/export/formats';
import type { ObjectStore } from '../../lib/storage/objectStore';
import { requireDataset } from '../../services/datasetAccess';
import { defaultExportFileName, exportStatus, openExportDownload, startExport } from '../../services/exports';
import type { TaskDeps } from '../../services/taskWorkflows';
import { mount } from '../routeSpec';
import type { ApiState, RequestState } from '../state';
import { exportRoutes } from '../specs/exports';

/** The spec's export calls: whole or selective exports in EXPORT tasks, and their status with a download link; the formats they take. */
export function createExportsRouter(deps: TaskDeps & { signer: UrlSigner; publicUrl: string }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, exportRoutes.exportContext, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'export');
    const id = await startExport(deps, dataset, ctx.state.user, {
      fileName: query.file_name,
      format: query.export_format,
      includeImages: query.include_images,
      includeDiscardedDuplicates: query.include_discarded_duplicates,
      includeRepeatedFrames: query.include_repeated_frames,
      snapshotId: query.snapshot_id,
    });
    ctx.body = { id };
  });

  mount(router, exportRoutes.exportEntities, async (ctx) => {
    const { params, query, body } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'export');
    const id = await startExport(deps, dataset, ctx.state.user, {
      fileName: query.file_name ?? defaultExportFileName(dataset),
      format: query.export_format,
      includeImages: query.include_images,
      includeDiscardedDuplicates: query.include_discarded_duplicates,
      includeRepeatedFrames: query.include_repeated_frames,
      snapshotId: query.snapshot_id,
      selection: body.media_selection,
    });
    ctx.body = { id };
  });

  mount(router, exportRoutes.formats, async (ctx) => {
    ctx.body = EXPORT_FORMAT_MODULES.map((format) => ({
      name: format.name,
      title: format.title,
      description: format.description,
      metadata_file: format.layout.fileName,
      always_includes_images: carriesImages(format.name, false),
      needs_label_field: format.needsLabelField,
    }));
  });

  mount(router, exportRoutes.exportStatus, async (ctx) => {
    const { params, query } = ctx.state.input;
    const dataset = await requireDataset(deps.db, params.dataset_id, ctx.state.user.id, 'export');
    const answer = await exportStatus(deps, dataset, ctx.state.user, query.export_task_id);
    ctx.body = {
      status: answer.status,
      download_uri: answer.downloadPath && deps.publicUrl + answer.downloadPath,
      progress_percentage: answer.progressPercentage,
      error_message: answer.errorMessage,
      file_name: answer.request.fileName,
      export_format: answer.request.format,
      include_images: answer.request.includeImages,
      selection: answer.request.selection ? { n_media: answer.request.selection.mediaIds.length, n_clusters: answer.request.selection.clusters.length + (answer.request.selection.objectClusters?.length ?? 0) } : null,
    };
  });

  return router;
}

/** Serves export archives behind the signed, expiring links export_status hands out (no other credential). */
export function createExportDownloadRouter(deps: { db: TaskDeps['db']; store: ObjectStore; signer: UrlSigner }): Router<RequestState> {
  const router = new Router<RequestState>();

  mount(router, exportRoutes.download, async (ctx) => {
    const { params, query } = ctx.state.input;
    const archive = await openExportDownload(deps, { taskId: params.task_id, fileName: params.file_name, ...query });
    ctx.type = 'application/zip';
    ctx.attachment(archive.fileName);
    ctx.set('Cache-Control', 'private, no-store');
    ctx.body = archive.stream;
  });

  return router;
}
