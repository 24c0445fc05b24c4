import { Context } from '@temporalio/activity';
import type { Db } from '../db/connection';
import { pendingUploads, transactionFiles, type UploadedFile } from '../db/repositories/ingestion';
import { ingestedUploadIds, insertMediaWithIssues, type NewMedia } from '../db/repositories/media';
import { headVersion } from '../db/repositories/versions';
import { analyzeImage, UndecodableMediaError, type ImageFacts, type ModelInputSpec } from '../lib/media/imageAnalysis';
import { extractFrames, probeVideo, type VideoTools } from '../lib/media/video';
import { pixelIssues, type Issue } from '../lib/quality/imageIssues';
import { blobKey, modelInputKey, type ObjectStore } from '../lib/storage/objectStore';
import { sha256Hex } from '../lib/sha256';
import type { DatasetCreationInput } from '../workflows/contracts';
import { createProgressReporter, type TaskRef } from './progress';

export interface IngestDeps {
  db: Db;
  store: ObjectStore;
  video: VideoTools;
  /** Video sampling: one frame every `everyMs`, at most `maxFrames` per video. */
  frames: { everyMs: number; maxFrames: number };
  /** The image model's input spec: the ingest's one decode also makes the model input and stores it for the embedding stage. */
  modelInput?: ModelInputSpec;
}

async function storeBytes(store: ObjectStore, bytes: Buffer): Promise<string> {
  const sha256 = sha256Hex(bytes);
  if (!(await store.exists(blobKey(sha256)))) await store.put(blobKey(sha256), bytes);
  return sha256;
}

/** Stores the model input the decode made for the image blob `sha256` (once per content and spec). */
async function storeModelInput(store: ObjectStore, sha256: string, facts: ImageFacts, spec: ModelInputSpec | undefined): Promise<void> {
  if (!spec || !facts.modelInput) return;
  const key = modelInputKey(sha256, spec);
  if (!(await store.exists(key))) await store.put(key, facts.modelInput);
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

/**
 * Turns the uploaded files of a transaction into media: decoded and validated (sharp / ffprobe),
 * thumbnails, pixel-quality issues, and sampled frames for videos. A file that cannot be decoded
 * becomes a media item with the issue `broken`. Files that already have media (an earlier attempt
 * got that far) are skipped, so a retried or resumed run never duplicates media.
 */
export function createIngestActivities(deps: IngestDeps) {
  const { db, store } = deps;

  async function ingestImage(versionId: string, file: UploadedFile, base: NewMedia): Promise<void> {
    try {
      const facts = await store.withLocalFile(blobKey(file.blob_sha256), (local) => analyzeImage(local, deps.modelInput));
      const thumb = await storeBytes(store, facts.thumbnail);
      await storeModelInput(store, file.blob_sha256, facts, deps.modelInput);
      await insertMediaWithIssues(db, versionId, [{ ...base, ...imageColumns(facts, thumb) }], [pixelIssues(facts)]);
    } catch (error) {
      if (!(error instanceof UndecodableMediaError)) throw error;
      await insertMediaWithIssues(db, versionId, [base], [[{ type: 'broken', confidence: 1, details: { reason: error.message } }]]);
    }
  }

  async function ingestVideo(versionId: string, file: UploadedFile, base: NewMedia): Promise<void> {
    try {
      const { info, frames } = await store.withLocalFile(blobKey(file.blob_sha256), async (local) => {
        const info = await probeVideo(deps.video, local);
        return { info, frames: await extractFrames(deps.video, local, info, deps.frames) };
      });
      const frameRows: NewMedia[] = [];
      const frameIssues: Issue[][] = [];
      let videoThumb: string | null = null;
      for (const frame of frames) {
        const facts = await analyzeImage(frame.jpeg, deps.modelInput);
        const thumb = await storeBytes(store, facts.thumbnail);
        videoThumb ??= thumb;
        const frameSha256 = await storeBytes(store, frame.jpeg);
        await storeModelInput(store, frameSha256, facts, deps.modelInput);
        frameRows.push({
          ...base,
          kind: 'VIDEO_FRAME',
          file_name: `${file.file_name}#frame=${frame.index}`,
          blob_sha256: frameSha256,
          size_bytes: frame.jpeg.length,
          frame_index: frame.index,
          frame_time_ms: frame.timeMs,
          ...imageColumns(facts, thumb),
        });
        frameIssues.push(pixelIssues(facts));
      }
      const video: NewMedia = {
        ...base,
        thumb_sha256: videoThumb,
        format: 'video',
        width: info.width,
        height: info.height,
        duration_ms: info.durationMs,
      };
      await insertMediaWithIssues(db, versionId, [video, ...frameRows], [[], ...frameIssues]);
    } catch (error) {
      if (!(error instanceof UndecodableMediaError)) throw error;
      await insertMediaWithIssues(db, versionId, [base], [[{ type: 'broken', confidence: 1, details: { reason: error.message } }]]);
    }
  }

  /** Turns `files` into media of batch `batchId`, skipping files that already have media. */
  async function ingestFiles(ref: TaskRef & { batchId: string }, files: UploadedFile[]): Promise<{ files: number; ingested: number }> {
    const context = Context.current();
    const version = await headVersion(db, ref.datasetId);
    const done = await ingestedUploadIds(db, version.id);
    const report = createProgressReporter(db, ref, 'ingest', 'Decoding media');
    let ingested = 0;
    for (const [index, file] of files.entries()) {
      context.heartbeat({ index });
      if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
      if (done.has(file.id)) continue;
      const base: NewMedia = {
        kind: file.media_kind,
        uploaded_file_id: file.id,
        batch_id: ref.batchId,
        file_name: file.file_name,
        blob_sha256: file.blob_sha256,
        size_bytes: Number(file.size_bytes),
      };
      if (file.media_kind === 'IMAGE') await ingestImage(version.id, file, base);
      else await ingestVideo(version.id, file, base);
      ingested++;
      await report(index + 1, files.length);
    }
    await report(files.length, files.length, true);
    return { files: files.length, ingested };
  }

  return {
    /** The files of one upload transaction (a creation or an add_media batch). */
    async ingestUploadedFiles(input: DatasetCreationInput): Promise<{ files: number; ingested: number }> {
      return ingestFiles(input, await transactionFiles(db, input.transactionId));
    },

    /** Every received file of the dataset that has no media yet (left by a failed batch), as batch `batchId`. */
    async ingestPendingUploads(ref: TaskRef & { batchId: string }): Promise<{ files: number; ingested: number }> {
      return ingestFiles(ref, await pendingUploads(db, ref.datasetId));
    },
  };
}
