import type { Readable } from 'node:stream';
import type { User } from '../db/models';
import type { DatasetRow } from '../db/repositories/datasets';
import { findExportTask, unknownSelectionIds } from '../db/repositories/exports';
import { labelQualityReport } from '../db/repositories/labelQuality';
import { findTaskForUser, type TaskRow } from '../db/repositories/tasks';
import type { UrlSigner } from '../lib/auth/signedUrls';
import { zipFileName } from '../lib/export/archiveNames';
import { carriesImages, exportFormatOf, type ExportFormat } from '../lib/export/formats';
import { forbidden, notFound, unprocessable } from '../lib/errors';
import { exportArchiveKey, type ObjectStore } from '../lib/storage/objectStore';
import type { ExportInput, ExportSelectionInput } from '../workflows/contracts';
import { requireStatusFor } from './datasetStates';
import { requireSnapshot } from './snapshots';
import { createTask, type TaskDeps } from './taskWorkflows';
import { repairTask } from './tasks';

/** An item of the spec's selective export body. */
export type SelectionItem =
  | { type: 'media'; payload: { media_ids: string[] } }
  | { type: 'cluster'; payload: { cluster_id: string; cluster_filters: { entity_type: 'IMAGES' | 'OBJECTS' }; exclude_media_ids: string[] } };

export interface ExportRequest {
  /** The ZIP's name (.zip is added when missing). */
  fileName: string;
  format: ExportFormat;
  includeImages: boolean;
  /** Copies a duplicate review discarded are left out unless asked for. */
  includeDiscardedDuplicates: boolean;
  /** Frames that repeat an earlier frame of their video are left out unless asked for. */
  includeRepeatedFrames: boolean;
  /** The spec's media_selection; absent for a whole-dataset export. */
  selection?: SelectionItem[];
  /** A snapshot to export instead of the head. */
  snapshotId?: string;
}

/** The spec's status values: PENDING until a worker takes the task, then RUNNING, then COMPLETED or FAILED. */
export type ExportStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED';

const EXPORT_STATUS: Record<TaskRow['status'], ExportStatus> = {
  INITIALIZING: 'PENDING',
  RUNNING: 'RUNNING',
  COMPLETED: 'COMPLETED',
  // A client polls until COMPLETED or FAILED; an aborted export will never complete.
  FAILED: 'FAILED',
  ABORTED: 'FAILED',
};

/** A cluster mentioned once more: a media item stays left out only when every mention leaves it out. */
function mention(clusters: Map<string, Set<string>>, clusterId: string, excludeMediaIds: string[]): void {
  const excluded = clusters.get(clusterId);
  const exclude = new Set(excludeMediaIds);
  clusters.set(clusterId, excluded ? new Set([...excluded].filter((id) => exclude.has(id))) : exclude);
}

const asClusterInputs = (clusters: Map<string, Set<string>>) => [...clusters].map(([clusterId, exclude]) => ({ clusterId, excludeMediaIds: [...exclude] }));

/**
 * The selection as the export reads it: ids deduplicated; an OBJECTS cluster selects the images that
 * hold one of its objects. Ids the version does not hold (as media, image clusters or object clusters) are refused (422).
 */
async function resolveSelection(deps: TaskDeps, versionId: string, items: SelectionItem[]): Promise<ExportSelectionInput> {
  const mediaIds = new Set<string>();
  const clusters = new Map<string, Set<string>>();
  const objectClusters = new Map<string, Set<string>>();
  for (const item of items) {
    if (item.type === 'media') {
      for (const id of item.payload.media_ids) mediaIds.add(id);
      continue;
    }
    const of = item.payload.cluster_filters.entity_type === 'OBJECTS' ? objectClusters : clusters;
    mention(of, item.payload.cluster_id, item.payload.exclude_media_ids);
  }
  const unknown = await unknownSelectionIds(deps.db, versionId, { mediaIds: [...mediaIds], clusterIds: [...clusters.keys()], objectClusterIds: [...objectClusters.keys()] });
  if (unknown.mediaIds.length > 0) throw unprocessable(`body.media_selection: media not in this dataset: ${unknown.mediaIds.join(', ')}`);
  if (unknown.clusterIds.length > 0) throw unprocessable(`body.media_selection: clusters not in this dataset: ${unknown.clusterIds.join(', ')}`);
  if (unknown.objectClusterIds.length > 0) {
    throw unprocessable(`body.media_selection: object clusters (entity_type OBJECTS) not in this dataset: ${unknown.objectClusterIds.join(', ')}`);
  }
  return { mediaIds: [...mediaIds], clusters: asClusterInputs(clusters), ...(objectClusters.size > 0 ? { objectClusters: asClusterInputs(objectClusters) } : {}) };
}

/** The version an export reads: a snapshot's frozen one, or the head of a READY dataset (409 otherwise). */
async function exportedVersion(deps: TaskDeps, dataset: DatasetRow, snapshotId: string | undefined): Promise<string> {
  if (snapshotId) return (await requireSnapshot(deps.db, dataset, snapshotId)).version_id;
  requireStatusFor(dataset, 'export');
  return dataset.head_version_id;
}

/**
 * Starts an EXPORT task of one version: a snapshot's, or the dataset's head. Nothing is claimed: the
 * dataset stays as it is and the export reads the version as it was at the request.
 */
export async function startExport(deps: TaskDeps, dataset: DatasetRow, user: User, request: ExportRequest): Promise<string> {
  const versionId = await exportedVersion(deps, dataset, request.snapshotId);
  if (exportFormatOf(request.format).needsLabelField && !(await labelQualityReport(deps.db, versionId))?.label_field) {
    throw unprocessable(`query.export_format: ${request.format} exports the classes of a label field, and dataset ${dataset.id} declares none: declare one first (PUT /api/v1/dataset/{dataset_id}/label_fields)`);
  }
  const selection = request.selection ? await resolveSelection(deps, versionId, request.selection) : undefined;
  const fileName = zipFileName(request.fileName);
  return createTask(
    deps,
    {
      taskType: 'EXPORT',
      datasetId: dataset.id,
      user,
      statusMessage: `Queued: ${fileName}`,
      input: (taskId): ExportInput => ({
        taskId,
        datasetId: dataset.id,
        datasetName: dataset.display_name,
        versionId,
        format: request.format,
        includeImages: carriesImages(request.format, request.includeImages),
        includeDiscardedDuplicates: request.includeDiscardedDuplicates,
        includeRepeatedFrames: request.includeRepeatedFrames,
        fileName,
        ...(selection ? { selection } : {}),
      }),
    },
    async () => undefined,
    async () => undefined,
  );
}

/** The default ZIP name of a selective export: the dataset's name in safe characters. */
export function defaultExportFileName(dataset: DatasetRow): string {
  const safe = dataset.display_name.replace(/[^\p{L}\p{N}._-]+/gu, '_').replace(/^[._]+/, '').slice(0, 100);
  return `${safe || 'dataset'}_export.zip`;
}

export interface ExportStatusAnswer {
  status: ExportStatus;
  /** A signed, expiring link to the archive once COMPLETED. */
  downloadPath: string | null;
  progressPercentage: number | null;
  errorMessage: string | null;
  /** What was asked for. */
  request: Pick<ExportInput, 'fileName' | 'format' | 'includeImages' | 'selection'>;
}

/** Where an export of `dataset` stands; an id that is not an export of it is not found. */
export async function exportStatus(deps: TaskDeps & { signer: UrlSigner }, dataset: DatasetRow, user: User, taskId: string): Promise<ExportStatusAnswer> {
  let task = await findTaskForUser(deps.db, taskId, user.id);
  if (!task || task.task_type !== 'EXPORT' || task.dataset_id !== dataset.id) throw notFound('Export not found');
  // A lost workflow (worker gone, terminated) would otherwise read RUNNING for ever.
  if (await repairTask(deps, task)) task = (await findTaskForUser(deps.db, taskId, user.id))!;
  // Past EXPORT_RETENTION_DAYS the archive is gone: a COMPLETED answer must carry a link that works.
  if (task.archive_released_at) throw notFound('The archive of this export expired and was removed; export again');
  const input = task.input as Partial<ExportInput>;
  const fileName = input.fileName ?? 'export.zip';
  return {
    request: { fileName, format: input.format ?? 'json', includeImages: input.includeImages ?? false, selection: input.selection },
    status: EXPORT_STATUS[task.status],
    downloadPath: task.status === 'COMPLETED' ? deps.signer.exportPath(task.task_id, fileName) : null,
    progressPercentage: task.progress_percentage,
    errorMessage: task.error_message,
  };
}

/** The archive behind a signed export link: a finished export of that name, while the link is valid. */
export async function openExportDownload(
  deps: { db: TaskDeps['db']; store: ObjectStore; signer: UrlSigner },
  link: { taskId: string; fileName: string; expires: number; signature: string },
): Promise<{ fileName: string; stream: Readable }> {
  if (!deps.signer.verifyExport(link.taskId, link.expires, link.signature)) throw forbidden('This download link is invalid or has expired');
  const task = await findExportTask(deps.db, link.taskId);
  if (!task || task.status !== 'COMPLETED' || task.fileName !== link.fileName) throw notFound('Export not found');
  const key = exportArchiveKey(task.taskId, task.fileName);
  if (!(await deps.store.exists(key))) throw notFound('The archive of this export is no longer stored');
  return { fileName: task.fileName, stream: await deps.store.getStream(key) };
}
