import { Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { pendingUploads } from '../db/repositories/ingestion';
import { analyzeImage, UndecodableMediaError, type ImageFacts } from '../lib/media/imageAnalysis';
import { extractFrames, probeVideo, type VideoTools } from '../lib/media/video';
import { pixelIssues, type Issue } from '../lib/quality/imageIssues';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';
import { sha256Hex } from '../lib/sha256';
import type { DatasetCreationInput } from '../workflows/contracts';
import { createProgressReporter, type TaskRef } from './progress';

export interface IngestDeps {
  db: Db;
  store: ObjectStore;
  video: VideoTools;
  /** Video sampling: one frame every `everyMs`, at most `maxFrames` per video. */
  frames: { everyMs: number; maxFrames: number };
}

interface UploadedFile {
  id: string;
  file_name: string;
  media_kind: 'IMAGE' | 'VIDEO';
  blob_sha256: string;
  size_bytes: string;
}

interface MediaRow {
  dataset_id: string;
  kind: 'IMAGE' | 'VIDEO' | 'VIDEO_FRAME';
  uploaded_file_id: string;
  batch_id: string;
  file_name: string;
  blob_sha256: string;
  size_bytes: number;
  thumb_sha256?: string | null;
  format?: string | null;
  width?: number | null;
  height?: number | null;
  frame_index?: number | null;
  frame_time_ms?: number | null;
  duration_ms?: number | null;
  mean_luma?: number | null;
  sharpness?: number | null;
}

async function storeBytes(store: ObjectStore, bytes: Buffer): Promise<string> {
  const sha256 = sha256Hex(bytes);
  if (!(await store.exists(blobKey(sha256)))) await store.put(blobKey(sha256), bytes);
  return sha256;
}

function imageColumns(facts: ImageFacts, thumbSha256: string) {
  return {
    thumb_sha256: thumbSha256,
    format: facts.format,
    width: facts.width,
    height: facts.height,
    mean_luma: facts.meanLuma,
    sharpness: facts.sharpness,
  };
}

/** Inserts media rows (the first is the parent of the rest) and their issues in one transaction. */
async function insertMedia(db: Db, rows: MediaRow[], issues: Issue[][]): Promise<void> {
  await db.transaction(async (trx) => {
    const [parent] = await trx('media').insert(rows[0]).returning('id');
    const children = rows.slice(1).map((row) => ({ ...row, parent_id: parent.id }));
    const childIds = children.length > 0 ? await trx('media').insert(children).returning('id') : [];
    const ids = [parent.id, ...childIds.map((row: { id: string }) => row.id)];
    const issueRows = ids.flatMap((mediaId, i) =>
      (issues[i] ?? []).map((issue) => ({
        media_id: mediaId,
        dataset_id: rows[0].dataset_id,
        issue_type: issue.type,
        confidence: issue.confidence,
        details: issue.details ? JSON.stringify(issue.details) : null,
      })),
    );
    if (issueRows.length > 0) await trx('media_issues').insert(issueRows);
  });
}

/**
 * Turns the uploaded files of a transaction into media: decoded and validated (sharp / ffprobe),
 * thumbnails, pixel-quality issues, and sampled frames for videos. A file that cannot be decoded
 * becomes a media item with the issue `broken`. Files that already have media (an earlier attempt
 * got that far) are skipped, so a retried or resumed run never duplicates media.
 */
export function createIngestActivities(deps: IngestDeps) {
  const { db, store } = deps;

  async function ingestImage(file: UploadedFile, base: MediaRow): Promise<void> {
    try {
      const facts = await store.withLocalFile(blobKey(file.blob_sha256), (local) => analyzeImage(local));
      const thumb = await storeBytes(store, facts.thumbnail);
      await insertMedia(db, [{ ...base, ...imageColumns(facts, thumb) }], [pixelIssues(facts)]);
    } catch (error) {
      if (!(error instanceof UndecodableMediaError)) throw error;
      await insertMedia(db, [base], [[{ type: 'broken', confidence: 1, details: { reason: error.message } }]]);
    }
  }

  async function ingestVideo(file: UploadedFile, base: MediaRow): Promise<void> {
    try {
      const { info, frames } = await store.withLocalFile(blobKey(file.blob_sha256), async (local) => {
        const info = await probeVideo(deps.video, local);
        return { info, frames: await extractFrames(deps.video, local, info, deps.frames) };
      });
      const frameRows: MediaRow[] = [];
      const frameIssues: Issue[][] = [];
      let videoThumb: string | null = null;
      for (const frame of frames) {
        const facts = await analyzeImage(frame.jpeg);
        const thumb = await storeBytes(store, facts.thumbnail);
        videoThumb ??= thumb;
        frameRows.push({
          ...base,
          kind: 'VIDEO_FRAME',
          file_name: `${file.file_name}#frame=${frame.index}`,
          blob_sha256: await storeBytes(store, frame.jpeg),
          size_bytes: frame.jpeg.length,
          frame_index: frame.index,
          frame_time_ms: frame.timeMs,
          ...imageColumns(facts, thumb),
        });
        frameIssues.push(pixelIssues(facts));
      }
      const video: MediaRow = {
        ...base,
        thumb_sha256: videoThumb,
        format: 'video',
        width: info.width,
        height: info.height,
        duration_ms: info.durationMs,
      };
      await insertMedia(db, [video, ...frameRows], [[], ...frameIssues]);
    } catch (error) {
      if (!(error instanceof UndecodableMediaError)) throw error;
      await insertMedia(db, [base], [[{ type: 'broken', confidence: 1, details: { reason: error.message } }]]);
    }
  }

  /** Turns `files` into media of batch `batchId`, skipping files that already have media. */
  async function ingestFiles(ref: TaskRef & { batchId: string }, files: UploadedFile[]): Promise<{ files: number; ingested: number }> {
    const context = Context.current();
    const done = new Set<string>(
      await db('media').where({ dataset_id: ref.datasetId }).whereNull('parent_id').whereNotNull('uploaded_file_id').pluck('uploaded_file_id'),
    );
    const report = createProgressReporter(db, ref, 'ingest', 'Decoding media');
    let ingested = 0;
    for (const [index, file] of files.entries()) {
      context.heartbeat({ index });
      if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
      if (done.has(file.id)) continue;
      const base: MediaRow = {
        dataset_id: ref.datasetId,
        kind: file.media_kind,
        uploaded_file_id: file.id,
        batch_id: ref.batchId,
        file_name: file.file_name,
        blob_sha256: file.blob_sha256,
        size_bytes: Number(file.size_bytes),
      };
      if (file.media_kind === 'IMAGE') await ingestImage(file, base);
      else await ingestVideo(file, base);
      ingested++;
      await report(index + 1, files.length);
    }
    await report(files.length, files.length, true);
    return { files: files.length, ingested };
  }

  return {
    /** The files of one upload transaction (a creation or an add_media batch). */
    async ingestUploadedFiles(input: DatasetCreationInput): Promise<{ files: number; ingested: number }> {
      const files: UploadedFile[] = await db('uploaded_files').where({ transaction_id: input.transactionId }).orderBy('id');
      return ingestFiles(input, files);
    },

    /** Every received file of the dataset that has no media yet (left by a failed batch), as batch `batchId`. */
    async ingestPendingUploads(ref: TaskRef & { batchId: string }): Promise<{ files: number; ingested: number }> {
      const files: UploadedFile[] = await pendingUploads(db, ref.datasetId).orderBy('f.id').select('f.*');
      return ingestFiles(ref, files);
    },
  };
}
