import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { claimDatasetStatus, datasetStatus, transitionDatasetStatus, type DatasetRow } from '../db/repositories/datasets';
import { deleteTransaction, openUploadTransaction } from '../db/repositories/ingestion';
import { runningTaskOf } from '../db/repositories/tasks';
import { headVersion } from '../db/repositories/versions';
import {
  BATCH_TASK_TYPES,
  canStart,
  claimTransition,
  releaseTransition,
  statusRefusal,
  type DatasetStatus,
} from '../lib/datasetStates';
import { DomainError, conflict, forbidden, invalid } from '../lib/errors';
import type { Config } from '../lib/config';
import type { Logger } from '../lib/logger';
import { DEFAULT_LABEL_FIELD } from '../lib/media/folderLabel';
import { readArchiveKind } from '../lib/sources/archive';
import { localEntries } from '../lib/sources/localPath';
import { parseS3Uri } from '../lib/sources/s3';
import { containsMedia, MediaSourceError, MissingEntryError, SourceNotAllowedError } from '../lib/sources/sourceEntry';
import type { ObjectStore } from '../lib/storage/objectStore';
import type { StagedFile } from '../lib/storage/staging';
import { describeSource, type BatchHints, type BatchSource, type MediaAdditionInput } from '../workflows/contracts';
import { storeUploads } from './ingestion';
import { storeBlobs } from './blobWrites';
import { openS3Source } from './s3Sources';
import { createTask, type TaskDeps } from './taskWorkflows';
import { repairTask } from './tasks';
import { resolveUploadLabels, type LabelsRequest } from './uploadLabels';

export interface MediaAdditionDeps extends TaskDeps {
  store: ObjectStore;
  config: Config;
  logger: Logger;
}

/** Entries of a folder or manifest looked at when checking, before accepting it, that it holds media. */
const SOURCE_CHECK_ENTRIES = 10_000;

/**
 * Why add_media or reindex cannot start now: another batch or reindex runs, or the status does not
 * allow it. A batch task whose workflow was terminated outside the API is repaired first (which
 * releases the dataset), and then `undefined` says: look again.
 */
async function blocked(
  deps: TaskDeps,
  datasetId: string,
  operation: 'add_media' | 'reindex',
  options = { repair: true },
): Promise<DomainError | undefined> {
  const running = await runningTaskOf(deps.db, datasetId, BATCH_TASK_TYPES);
  if (running && options.repair && (await repairTask(deps, running))) return undefined;
  if (running) return conflict(`Operation '${operation}' is blocked while ${running.task_type} task is running`);
  const status = await datasetStatus(deps.db, datasetId);
  if (!status || canStart(operation, status)) return undefined;
  return conflict(statusRefusal(datasetId, operation, status));
}

/** Refuses with a conflict unless the state machine lets `operation` start (after repairing a stale batch task). */
async function requireStatus(deps: TaskDeps, dataset: DatasetRow, operation: 'add_media' | 'reindex') {
  if (canStart(operation, dataset.status_new)) return;
  const refusal = await blocked(deps, dataset.id, operation);
  if (refusal) throw refusal;
}

export function requireAddMediaEnabled(config: Config): void {
  if (!config.addMediaEnabled) throw forbidden('Add media feature is not enabled');
}

/** The preconditions that do not depend on the request body, checked before any upload is received. */
export async function checkAddMediaPreconditions(deps: TaskDeps, dataset: DatasetRow): Promise<void> {
  await requireStatus(deps, dataset, 'add_media');
  if (!dataset.embedding_config) {
    throw invalid(`Dataset ${dataset.id} has no embedding_config: it was never fully indexed, so media cannot be added yet`);
  }
}

/** An archive upload, checked by its first bytes; startMediaAddition stores it as one blob the workflow extracts. */
export async function checkArchive(file: StagedFile & { fileName: string }): Promise<BatchSource> {
  if (!(await readArchiveKind(file.path))) throw invalid(`${file.fileName} is not a valid .zip, .tar or .tar.gz archive`);
  return { kind: 'archive', blobSha256: file.sha256, fileName: file.fileName };
}

/**
 * An object-storage source, checked before the request is accepted: a well-formed URI within what
 * S3_SOURCE_POLICY lets the dataset's organization read (as `assumeRole`, one of its roles, when
 * given), whose folder or manifest holds at least one supported media file. A manifest is read
 * whole, and one entry outside the allowance refuses it (403).
 */
export async function checkS3Source(
  deps: { db: Db; config: Config; logger: Logger },
  dataset: Pick<DatasetRow, 'id'>,
  uri: string,
  assumeRole?: string,
): Promise<BatchSource> {
  const invalidUri = invalid(`Invalid S3 URI or no media files found at ${uri}`);
  const parsed = parseS3Uri(uri);
  if (!parsed) throw invalidUri;
  let client;
  try {
    const source = { location: parsed, uri, assumeRole };
    const opened = await openS3Source({ db: deps.db, s3: deps.config.s3, policy: deps.config.s3SourcePolicy }, dataset.id, source, 'media-dataset-check');
    client = opened.client;
    if (!(await containsMedia(opened.entries, SOURCE_CHECK_ENTRIES))) throw invalidUri;
  } catch (error) {
    if (error instanceof DomainError) throw error;
    if (error instanceof SourceNotAllowedError) throw forbidden(error.message);
    if (error instanceof MissingEntryError) throw invalidUri;
    if (error instanceof MediaSourceError) throw invalid(error.message);
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    // The storage answered with a client error (no such bucket or key, access denied): the URI is at fault.
    if (status !== undefined && status >= 400 && status < 500) {
      deps.logger.info({ uri, err: error }, 'add_media: S3 source refused');
      throw invalidUri;
    }
    throw error;
  } finally {
    client?.destroy();
  }
  return { kind: 's3', uri, ...(assumeRole ? { assumeRole } : {}) };
}

type Upload = StagedFile & { fileName: string; folder?: string | null };

/** A labels file names uploaded files: an archive's or S3 folder's are known only once the workflow collects them. */
export function requireLabelsSource(labelsFrom: LabelsRequest['from'] | undefined, sourceKind: BatchSource['kind']): void {
  if (labelsFrom !== undefined && labelsFrom !== 'folder' && sourceKind !== 'upload') {
    throw invalid(`labels_from=${labelsFrom} goes with files[] uploads; for an archive or S3 batch, import the labels after it (POST …/custom_metadata)`);
  }
}

/**
 * A batch's labels (labels_from folder, csv or coco) through the one import path, into the field asked for, else the
 * dataset's declared label field, else `label`. A dataset checks one label field, so asking for another than the
 * declared one is refused (declare it first with PUT label_fields); so is a batch of uploads none of which was sent from
 * a folder (archives and S3 keys show theirs later), and a label file with another source than uploaded files.
 */
async function batchLabels(db: Db, datasetId: string, labels: LabelsRequest, source: BatchSource, uploads: Upload[]) {
  const version = await headVersion(db, datasetId);
  const declared = version.label_quality?.label_field ?? null;
  if (labels.field !== null && declared !== null && labels.field !== declared) {
    throw invalid(`label_field ${labels.field} is not the label field dataset ${datasetId} checks (${declared}): send label_field=${declared}, or declare ${labels.field} with PUT label_fields first`);
  }
  requireLabelsSource(labels.from, source.kind);
  const labelField = labels.field ?? declared ?? DEFAULT_LABEL_FIELD;
  const splitField = declared === labelField ? (version.label_quality?.split_field ?? null) : null;
  const resolved = await resolveUploadLabels(db, labels, uploads, { versionId: version.id, labelField, splitField, filesLater: source.kind !== 'upload' });
  const byFile = new Map(resolved.files.map((row) => [row.fileName, row]));
  const labelled = uploads.map((file) => ({ ...file, label: byFile.get(file.fileName)?.label ?? null, split: byFile.get(file.fileName)?.split ?? null }));
  return { transaction: resolved.transaction, uploads: labelled };
}

/**
 * Starts a MEDIA_ADDITION batch: the dataset goes READY or PARTIAL INDEX → READ ONLY in one
 * guarded update (of two concurrent requests exactly one wins), the batch's files (uploads now,
 * other sources in the workflow) are held by a new upload transaction, and the workflow starts.
 * Anything failing before the workflow runs removes the transaction and restores the status.
 */
export async function startMediaAddition(
  deps: MediaAdditionDeps,
  dataset: DatasetRow,
  user: Pick<User, 'id' | 'email'>,
  request: {
    source: BatchSource;
    uploads?: Upload[];
    archive?: StagedFile;
    autoReindex: boolean;
    hints: BatchHints;
    /** labels_from (folder, csv or coco) and the field asked for; null without labels_from. */
    labels?: LabelsRequest | null;
  },
): Promise<string> {
  const { db } = deps;
  const labelled = request.labels ? await batchLabels(db, dataset.id, request.labels, request.source, request.uploads ?? []) : null;
  const transactionId = await openUploadTransaction(db, dataset.id, user.id, 'PROCESSING', labelled?.transaction ?? null);
  let previousStatus: DatasetStatus = dataset.status_new;
  try {
    await storeUploads(db, deps.store, { id: transactionId, dataset_id: dataset.id, status: 'PROCESSING' }, labelled?.uploads ?? request.uploads ?? []);
    // Only the task's input names the archive: registered until the task row commits; the collector then waits for the task.
    return await storeBlobs(deps, request.archive ? [request.archive] : [], () =>
      createTask(
        deps,
        {
          taskType: 'MEDIA_ADDITION',
          datasetId: dataset.id,
          user,
          statusMessage: `Queued: ${describeSource(request.source)}`,
          input: (taskId): MediaAdditionInput => ({
            taskId,
            datasetId: dataset.id,
            transactionId,
            batchId: taskId,
            source: request.source,
            autoReindex: request.autoReindex,
            previousStatus,
            hints: request.hints,
          }),
        },
        async (trx) => {
          const claim = await claimDatasetStatus(trx, dataset.id, claimTransition('add_media'));
          previousStatus = claim.previous ?? previousStatus;
          if (!claim.claimed) {
            // No repair here: this transaction holds the dataset row a repair would update.
            throw (await blocked(deps, dataset.id, 'add_media', { repair: false })) ?? conflict(`Dataset ${dataset.id} changed status; try again`);
          }
        },
        async (db) => {
          await transitionDatasetStatus(db, dataset.id, releaseTransition('add_media', previousStatus));
        },
      ),
    );
  } catch (error) {
    await deleteTransaction(db, transactionId);
    throw error;
  }
}

/** Starts a REINDEX of a PARTIAL INDEX dataset (→ READ ONLY, then INDEXING in the workflow, then READY). */
export async function startReindex(deps: TaskDeps, dataset: DatasetRow, user: Pick<User, 'id' | 'email'>): Promise<string> {
  await requireStatus(deps, dataset, 'reindex');
  return createTask(
    deps,
    { taskType: 'REINDEX', datasetId: dataset.id, user, statusMessage: 'Queued', input: (taskId) => ({ taskId, datasetId: dataset.id }) },
    async (trx) => {
      if (!(await transitionDatasetStatus(trx, dataset.id, claimTransition('reindex')))) {
        throw (await blocked(deps, dataset.id, 'reindex', { repair: false })) ?? conflict(`Dataset ${dataset.id} changed status; try again`);
      }
    },
    async (db) => {
      await transitionDatasetStatus(db, dataset.id, releaseTransition('reindex', 'PARTIAL INDEX'));
    },
  );
}

/** A local source (on-premises pipeline): an absolute path, readable here, with at least one media file. */
export async function checkLocalSource(config: Config, target: string): Promise<BatchSource> {
  let found: boolean;
  try {
    found = await containsMedia(localEntries(target, config.archives), SOURCE_CHECK_ENTRIES);
  } catch (error) {
    if (error instanceof MediaSourceError) throw invalid(`Invalid path or no media files found at ${target}: ${error.message}`);
    throw error;
  }
  if (!found) throw invalid(`Invalid path or no media files found at ${target}`);
  return { kind: 'local', path: target };
}
