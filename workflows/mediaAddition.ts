import { ApplicationFailure, CancellationScope, isCancellation } from '@temporalio/workflow';
import type { DatasetStatus } from '../db/models';
import { analysis, embedding, ingest, lifecycle, monitoring, sources } from './activityProxies';
import { failureMessage } from './failures';

/** Where the media of a batch come from; uploaded files are recorded by the request itself. */
export type BatchSource =
  | { kind: 'upload' }
  | { kind: 'archive'; blobSha256: string; fileName: string }
  | { kind: 's3'; uri: string; assumeRole?: string }
  | { kind: 'local'; path: string };

export function describeSource(source: BatchSource): string {
  switch (source.kind) {
    case 'upload':
      return 'the uploaded files';
    case 'archive':
      return source.fileName;
    case 's3':
      return source.uri;
    case 'local':
      return source.path;
  }
}

/** Resource hints of add_media, recorded with the task (a self-hosted worker pool has one size). */
export interface BatchHints {
  batchNImages?: number;
  batchNVideos?: number;
  batchNObjects?: number;
  useSpot?: boolean;
}

export interface MediaAdditionInput {
  taskId: string;
  datasetId: string;
  /** The upload transaction that holds the batch's files. */
  transactionId: number;
  /** Media of this batch carry it; it is also the batch_id of the views' trend points. */
  batchId: string;
  source: BatchSource;
  autoReindex: boolean;
  /** The status to go back to when the batch fails before any of its media got in. */
  previousStatus: DatasetStatus;
  hints: BatchHints;
}

/**
 * MEDIA_ADDITION: the dataset is READ ONLY (claimed by the request). The batch is collected,
 * decoded, embedded, placed into the existing clusters and scored against the whole dataset, and
 * evaluated by the saved views; then the dataset is PARTIAL INDEX, or with auto_reindex it is
 * re-clustered (INDEXING) and ends READY.
 */
export async function mediaAdditionWorkflow(input: MediaAdditionInput): Promise<void> {
  const { taskId, datasetId, batchId } = input;
  const ref = { taskId, datasetId };
  try {
    await lifecycle.beginTask({ ...ref, message: 'Processing added media' });
    const collected = input.source.kind === 'upload' ? undefined : await sources.collectBatchMedia(input);
    await ingest.ingestUploadedFiles(input);
    await embedding().embedDatasetMedia(ref);
    await analysis.indexBatch({ ...ref, batchId });
    await monitoring.evaluateViews({ ...ref, batchId });
    if (input.autoReindex) {
      await lifecycle.beginReindex(ref);
      await analysis.analyzeDataset(ref);
      await CancellationScope.nonCancellable(() => lifecycle.commitReindex(ref));
    } else {
      await CancellationScope.nonCancellable(() => lifecycle.completeMediaAddition({ ...ref, batchId, missing: collected?.missing ?? [] }));
    }
  } catch (error) {
    const aborted = isCancellation(error);
    const message = aborted ? 'Aborted by user' : failureMessage(error);
    await CancellationScope.nonCancellable(() =>
      lifecycle.failBatchTask({ ...ref, batchId, previousStatus: input.previousStatus, aborted, message }),
    );
    if (aborted) throw error;
    throw ApplicationFailure.create({ type: 'MediaAdditionFailed', message, nonRetryable: true });
  }
}
