import { datasetCreationTask } from '../tasks/datasetCreation';

/** A media item as an export reads it from its version: the row with its issues, labels, tags, clusters and objects. */
export interface ExportRow {
  id: string;
  kind: 'IMAGE' | 'VIDEO' | 'VIDEO_FRAME';
  parent_id: string | null;
  file_name: string;
  batch_id: string;
  blob_sha256: string;
  size_bytes: number | null;
  format: string | null;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  frame_index: number | null;
  frame_time_ms: number | null;
  uniqueness_score: number | null;
  caption: string | null;
  custom_metadata: Record<string, unknown> | null;
  created_at: Date;
  /** The image or video the file came as: the row itself, or a frame's video. */
  top_id: string;
  top_file_name: string;
  /** How many images and videos of the version carry the same file name and came in before the top item. */
  top_name_rank: number;
  issues: Array<{ type: string; confidence: number; details: Record<string, unknown> | null }> | null;
  labels: Array<{ label: string; source: string; confidence: number | null }> | null;
  tags: Array<{ id: string; name: string }> | null;
  /** Cluster id by threshold ("0" to "4"). */
  clusters: Record<string, string> | null;
  /** Its detected objects (object detection enrichment), most confident first. */
  objects: ExportObject[] | null;
}

/** Where a batch of media came from, as add_media or dataset creation received it. */
export interface BatchSource {
  kind: 'upload' | 'archive' | 's3' | 'local';
  /** The archive's file name, the s3_uri, or the path given; null for uploaded files. */
  location: string | null;
}

/** An object found in a media item by object detection (none exist until that enrichment does). */
export interface ExportObject {
  label: string;
  confidence: number | null;
  /** Fractions (0-1) of the image: x, y of the top-left corner, width, height. */
  bounding_box: { x: number; y: number; width: number; height: number };
}

/** One record of the metadata file: everything the service knows about one exported media item. */
export interface ExportRecord {
  media_id: string;
  media_type: ExportRow['kind'];
  file_name: string;
  /** The path of its bytes under images/ in the archive (the same whether or not images are included). */
  image_filename: string;
  /** The file as received, relative to its source; a frame's is its video's. */
  original_path: string;
  source_kind: BatchSource['kind'] | null;
  source_location: string | null;
  sha256: string;
  size_bytes: number | null;
  format: string | null;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  video_id: string | null;
  frame_index: number | null;
  frame_time_ms: number | null;
  cluster_id_0: string | null;
  cluster_id_1: string | null;
  cluster_id_2: string | null;
  cluster_id_3: string | null;
  cluster_id_4: string | null;
  uniqueness_score: number | null;
  duplicate_of: string | null;
  similarity: number | null;
  /** From its mislabel issue (label quality): how likely its label is wrong, and the label its neighbours suggest. */
  mislabel_score: number | null;
  suggested_label: string | null;
  issues: Array<{ type: string; confidence: number; details: Record<string, unknown> | null }>;
  labels: Array<{ label: string; source: string; confidence: number | null }>;
  tags: Array<{ id: string; name: string }>;
  caption: string | null;
  objects: ExportObject[];
  custom_metadata: Record<string, unknown> | null;
  created_at: string;
}

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** The metadata record of one row, given the name its bytes have in the archive and where its batch came from. */
export function toExportRecord(row: ExportRow, imageFilename: string, source: BatchSource | undefined): ExportRecord {
  const clusters = row.clusters ?? {};
  const duplicate = row.issues?.find((issue) => issue.type === 'duplicates')?.details ?? null;
  const mislabel = row.issues?.find((issue) => issue.type === 'mislabel')?.details ?? null;
  return {
    media_id: row.id,
    media_type: row.kind,
    file_name: row.file_name,
    image_filename: imageFilename,
    original_path: row.top_file_name,
    source_kind: source?.kind ?? null,
    source_location: source?.location ?? null,
    sha256: row.blob_sha256,
    size_bytes: row.size_bytes,
    format: row.format,
    width: row.width,
    height: row.height,
    duration_ms: row.duration_ms,
    video_id: row.kind === 'VIDEO_FRAME' ? row.parent_id : null,
    frame_index: row.frame_index,
    frame_time_ms: row.frame_time_ms,
    cluster_id_0: clusters['0'] ?? null,
    cluster_id_1: clusters['1'] ?? null,
    cluster_id_2: clusters['2'] ?? null,
    cluster_id_3: clusters['3'] ?? null,
    cluster_id_4: clusters['4'] ?? null,
    uniqueness_score: row.uniqueness_score,
    duplicate_of: typeof duplicate?.duplicate_of === 'string' ? duplicate.duplicate_of : null,
    similarity: numberOrNull(duplicate?.similarity),
    mislabel_score: numberOrNull(mislabel?.score),
    suggested_label: typeof mislabel?.suggested_label === 'string' ? mislabel.suggested_label : null,
    issues: row.issues ?? [],
    labels: row.labels ?? [],
    tags: row.tags ?? [],
    caption: row.caption,
    objects: row.objects ?? [],
    custom_metadata: row.custom_metadata,
    created_at: row.created_at.toISOString(),
  };
}

/** The batch source recorded in a task's input (dataset creation takes uploaded files only). */
export function batchSourceOf(taskType: string, source: unknown): BatchSource | undefined {
  if (taskType === datasetCreationTask.type) return { kind: 'upload', location: null };
  if (!source || typeof source !== 'object') return undefined;
  const value = source as Record<string, unknown>;
  switch (value.kind) {
    case 'upload':
      return { kind: 'upload', location: null };
    case 'archive':
      return { kind: 'archive', location: typeof value.fileName === 'string' ? value.fileName : null };
    case 's3':
      return { kind: 's3', location: typeof value.uri === 'string' ? value.uri : null };
    case 'local':
      return { kind: 'local', location: typeof value.path === 'string' ? value.path : null };
    default:
      return undefined;
  }
}
