import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { DatasetStatus } from '../lib/datasetStates';
import type { MediaFilter } from '../lib/vql/compileVql';
import type { BoundingBox } from '../lib/media/crop';
import type { ExportFormat } from '../lib/export/formats';

// What both sides of a workflow share: task queues, inputs and queries. Outside workflows/, only this
// module may be imported (it holds no activity proxies, so importing it starts no import cycle).

/**
 * Workflows and I/O activities run on the main queue; CPU-heavy inference on `<main>-inference`
 * with bounded concurrency. The main queue name is configurable (TASK_QUEUE), so tests and
 * side-by-side deployments can share one Temporal namespace without picking up each other's work.
 */
export function taskQueues(main: string) {
  return { workflows: main, inference: inferenceQueueOf(main) };
}

export function inferenceQueueOf(main: string): string {
  return `${main}-inference`;
}

/** Asks the storage collector to run now (after a dataset delete) instead of at its next interval. */
export const collectNowSignal = defineSignal('collectNow');

/** The storage collector's workflow id on a task queue: one collector per deployment (per queue in tests). */
export function storageCollectionWorkflowId(taskQueue: string): string {
  return `storage-collection-${taskQueue}`;
}

export interface DatasetCreationInput {
  taskId: string;
  datasetId: string;
  transactionId: number;
  /** Media created by this run carry it, so a batch can be told apart from later additions. */
  batchId: string;
}

/** Which uploaded files a run indexes: one upload transaction's, or every received file of the dataset that its head has no media for (left by failed batches). */
export type FileSelection = { transactionId: number } | { pendingOf: string };

/** What a MEDIA_CHUNKS run works through: uploaded files (decoded, then embedded), or the media of a dataset's head (enriched). */
export type ChunkSelection = FileSelection | { mediaOf: string };

/** The selected rows (files or media) with ids in (after, last], in id order: the unit of work of one activity per step. */
export interface FileChunk {
  after: string | null;
  last: string;
  /** The chunk's position among the run's chunks (from 0), for progress. */
  ordinal: number;
}

/** Items ordinal start … end-1 of a version's images and frames (by id): one neighbour-search chunk of an analysis. */
export interface KnnChunk {
  ordinal: number;
  start: number;
  end: number;
}

/** The head version an analysis works on and its image vectors' collection. */
export interface KnnStep {
  taskId: string;
  datasetId: string;
  versionId: string;
  collection: string;
  /** How many chunks the stored graph has. */
  chunks: number;
}

/** The plan of an analysis as fan-out: its chunks, how many run at once (INDEX_CHUNK_CONCURRENCY), and a key for the workers' caches. */
export interface KnnPlan {
  versionId: string;
  collection: string;
  analysisId: string;
  chunks: KnnChunk[];
  concurrency: number;
}

/** A reindex's plan: a full rebuild (and why), or the chunks of new items that extend the stored graph. */
export type IncrementalKnnPlan =
  | { kind: 'full'; reason: string }
  | {
      kind: 'incremental';
      versionId: string;
      collection: string;
      analysisId: string;
      /** The stored graph's chunk rows; the new items' chunks are stored after them. */
      baseChunks: number;
      /** Ranges over the items to search (new, or embedded since). */
      chunks: KnnChunk[];
      concurrency: number;
    };

/** The steps of an incremental reindex: `chunks` counts the new items' chunks, stored after the graph's `baseChunks`. */
export interface NewKnnStep extends KnnStep {
  analysisId: string;
  baseChunks: number;
}

export interface NewKnnChunkStep extends NewKnnStep {
  chunk: KnnChunk;
}

export interface KnnChunkStep extends KnnStep {
  analysisId: string;
  chunk: KnnChunk;
}

/** The chunks of one run, planned a window at a time. */
export interface ChunkPlan {
  chunks: FileChunk[];
  /** Chunks left from the first of `chunks` on, this window's included. */
  remaining: number;
  /** How many chunks of one run are in flight at once (INDEX_CHUNK_CONCURRENCY). */
  concurrency: number;
}

/** One chunk's step: decode it (main queue), embed it or enrich it (inference queue). */
export interface ChunkStep {
  taskId: string;
  datasetId: string;
  /** Media the step creates carry it. */
  batchId: string;
  selection: ChunkSelection;
  chunk: FileChunk;
  /** The run's chunk count, for progress. */
  chunks: number;
}

/**
 * MEDIA_CHUNKS (a child of creation, add_media, reindex and enrichment): the selected files decoded and embedded, or the
 * selected media enriched, chunk by chunk with bounded concurrency, across every worker on the queues. Each run plans one
 * window of chunks and continues as new with the cursor, so its history stays bounded whatever the number of files.
 */
export interface MediaChunksInput {
  taskId: string;
  datasetId: string;
  batchId: string;
  selection: ChunkSelection;
  /** Where this run starts: after the last row of the previous run's window. */
  after?: string | null;
  /** Chunks finished by the previous runs. */
  chunksDone?: number;
}

export type CreationPhase = 'starting' | 'indexing' | 'analyzing' | 'snapshot' | 'commit' | 'done';

/** Where a creation is; the API refuses to abort once this says `commit`. */
export const creationPhaseQuery = defineQuery<CreationPhase>('creationPhase');

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

/** A MAP_LAYOUT task, started by the analysing task `byTaskId` after its commit (services/mapLayout.ts). */
export interface MapLayoutInput {
  taskId: string;
  datasetId: string;
  byTaskId: string;
}

/** What a MAP_LAYOUT task lays out: the due layout `layoutId` of version `versionId`. */
export interface DueMapLayout extends MapLayoutInput {
  versionId: string;
  layoutId: string;
}

export interface ReindexInput {
  taskId: string;
  datasetId: string;
}

export interface CustomMetadataInput {
  taskId: string;
  datasetId: string;
  blobSha256: string;
  format: 'json' | 'csv' | 'parquet';
  /** The status the import claimed the dataset from (READ ONLY while it runs), restored at the end. */
  previousStatus: DatasetStatus;
}

/** LABEL_PROPAGATION: `label` on the selected media (seeds) and on their near neighbours. */
export interface LabelPropagationInput {
  taskId: string;
  datasetId: string;
  label: string;
  /** The seeds, resolved against the head version when the task runs (a MediaSelection). */
  selection: { mediaIds?: string[]; clusterIds?: string[]; filters?: MediaFilter[] };
  /** A neighbour is labelled when its cosine similarity to a seed is at least this. */
  minSimilarity: number;
  /** At most this many nearest neighbours per seed; 0 labels the seeds only. */
  maxNeighbours: number;
  /** The status the task claimed the dataset from (READ ONLY while it runs), restored at the end. */
  previousStatus: DatasetStatus;
}

/** SELECTION: `count` items of those `filters` match chosen by a weighted mix of strategies, written as tag `tag` (issue 52). */
export interface SelectionInput {
  taskId: string;
  datasetId: string;
  /** Each strategy's share of the budget (lib/selection/chooseItems.ts). */
  weights: Partial<Record<'typicality' | 'representative' | 'diversity' | 'uniqueness' | 'coverage', number>>;
  count: number;
  /** The pool: the images and frames the filters match on the head version when the task runs. */
  filters: MediaFilter[];
  tag: string;
  seed: number;
  /** The budget split evenly over the declared label field's classes (or clusters without one). */
  balance: boolean;
  /** Who asked: the tag's creator. */
  userId: string;
  /** The status the task claimed the dataset from (READ ONLY while it runs), restored at the end. */
  previousStatus: DatasetStatus;
}

/** A SELECTION spread over workers: chunks of its pool (places in the pool by id), `concurrency` at a time. */
export interface SelectionPlan {
  chunks: KnnChunk[];
  concurrency: number;
}

/** A step of a SELECTION spread over workers: its input and how many chunks its pool is stored in. */
export interface SelectionStep extends SelectionInput {
  chunks: number;
}

/** LABEL_QUALITY: mislabels, leakage and the report from the custom-metadata fields declared as label and split. */
export interface LabelQualityInput {
  taskId: string;
  datasetId: string;
  labelField: string;
  /** null: no split field, so no leakage check. */
  splitField: string | null;
  /** The status the task claimed the dataset from (READ ONLY while it runs), restored at the end. */
  previousStatus: DatasetStatus;
}

/** Which fields a label-quality check reads: given (LABEL_QUALITY), the ones the head's report names (a recheck), or the folder field of a creation transaction. */
export type LabelFieldsSource = { label: string; split: string | null } | { declared: true } | { transactionId: number };

/** A label-quality check spread over workers: what to check, and the stage its progress counts in. */
export interface LabelCheckInput {
  taskId: string;
  datasetId: string;
  fields: LabelFieldsSource;
  stage: 'check_labels' | 'analyze';
}

/** A planned check: the head version, the fields, and chunks of its labelled images (by ordinal, ANALYSIS_CHUNK_SIZE each). */
export interface LabelCheckStep {
  taskId: string;
  datasetId: string;
  versionId: string;
  collection: string;
  /** A key for the workers' caches of the labelled images. */
  checkId: string;
  fields: { label: string; split: string | null };
  stage: LabelCheckInput['stage'];
  chunks: number;
}

export interface LabelCheckPlan extends Omit<LabelCheckStep, 'chunks'> {
  chunks: KnnChunk[];
  concurrency: number;
}

/** A snapshot's frozen version copied into `versionId` of `datasetId` (restore and clone). */
interface SnapshotCopyInput {
  taskId: string;
  datasetId: string;
  snapshotId: string;
  sourceVersionId: string;
  /** Chosen by the request, so a repeated copy finds its own version. */
  versionId: string;
  snapshotStatus: 'READY' | 'PARTIAL INDEX';
}

/** SNAPSHOT_RESTORE: the copy becomes the dataset's head. */
export interface SnapshotRestoreInput extends SnapshotCopyInput {
  /** The status the restore claimed the dataset from, given back if it fails. */
  previousStatus: DatasetStatus;
}

/** SNAPSHOT_CLONE: the copy is the head of a new dataset (`datasetId`), which gets the snapshot's views and a snapshot of its own. */
export interface SnapshotCloneInput extends SnapshotCopyInput {
  /** The clone's own first snapshot (reason `clone`). */
  cloneSnapshotId: string;
}

/**
 * ENRICHMENT: the source's head version is copied into `versionId` of a new dataset `datasetId`
 * (INDEXING, made by the request), whose models then run over it; the source is READ ONLY meanwhile.
 */
export interface EnrichmentInput {
  taskId: string;
  datasetId: string;
  sourceDatasetId: string;
  sourceVersionId: string;
  /** Chosen by the request, so a repeated copy finds its own version. */
  versionId: string;
  /** Every enrichment the copy carries: the source's own and the requested ones (type → model id). */
  enrichmentModels: Record<string, string>;
  /** The status the request claimed the source from, given back at the end. */
  sourcePreviousStatus: DatasetStatus;
}

/** What an export selects: media by id (a video's id takes its frames too) and whole clusters less some media. */
export interface ExportSelectionInput {
  mediaIds: string[];
  clusters: Array<{ clusterId: string; excludeMediaIds: string[] }>;
  /** Object clusters: the images holding one of their objects, less some media (absent in exports asked for before they were read). */
  objectClusters?: Array<{ clusterId: string; excludeMediaIds: string[] }>;
}

/** EXPORT: one version of a dataset packaged into a ZIP in the object store. */
export interface ExportInput {
  taskId: string;
  datasetId: string;
  datasetName: string;
  /** The version read: the dataset's head when the export was asked for (a snapshot's version would do as well). */
  versionId: string;
  format: ExportFormat;
  /** The archive carries the images (asked, or a format that always does: yolo, hf). */
  includeImages: boolean;
  /** False: the copies a duplicate review discarded are left out (absent in exports asked for before reviews existed). */
  includeDiscardedDuplicates?: boolean;
  /** False: a frame that repeats an earlier frame of its video is left out (absent in exports asked for before repeats were known). */
  includeRepeatedFrames?: boolean;
  /** The ZIP's name, ending in .zip. */
  fileName: string;
  /** Absent: every media item of the version. */
  selection?: ExportSelectionInput;
}

/** The input of encodeQueryImageWorkflow: an uploaded visual-search query image to embed as an anchor. */
export interface QueryImage {
  anchorId: string;
  datasetId: string;
  blobSha256: string;
  boundingBox: BoundingBox | null;
  /** The clustering threshold given with the upload (absent in workflows started before it was kept). */
  threshold?: number | null;
  createdBy: string;
}
