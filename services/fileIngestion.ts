import { ApplicationFailure } from '@temporalio/common';
import pLimit from 'p-limit';
import type { Db } from '../db/connection';
import { chunkFiles, type UploadedFile } from '../db/repositories/ingestion';
import { ingestedUploadIds, insertMediaGroups, type MediaGroup, type NewMedia } from '../db/repositories/media';
import { headVersion } from '../db/repositories/versions';
import { analyzeImage, UndecodableMediaError, type ImageFacts, type ModelInputSpec } from '../lib/media/imageAnalysis';
import { encodePrint } from '../lib/media/pixelPrint';
import { extractFrames, probeVideo, type VideoTools } from '../lib/media/video';
import { pixelIssues, type Issue } from '../lib/quality/imageIssues';
import type { PixelPrint } from '../lib/quality/pixelMatch';
import { repeatedFrames } from '../lib/quality/repeatedFrames';
import { sha256Hex } from '../lib/sha256';
import { blobKey, modelInputKey, type ObjectStore } from '../lib/storage/objectStore';
import type { ChunkSelection, ChunkStep, FileSelection } from '../workflows/contracts';
import { heartbeatOrStop, type Liveness } from './taskLiveness';
import { createChunkProgressReporter } from './taskProgress';

export interface IngestDeps {
  db: Db;
  store: ObjectStore;
  video: VideoTools;
  /** Video sampling: one frame every `everyMs`, at most `maxFrames` per video. */
  frames: { everyMs: number; maxFrames: number };
  /** The image model's input spec: the ingest's one decode also makes the model input and stores it for the embedding stage. */
  modelInput?: ModelInputSpec;
  /** Files per chunk, and chunks of one run in flight at once (INDEX_CHUNK_SIZE, INDEX_CHUNK_CONCURRENCY). */
  chunks: { size: number; concurrency: number };
  /**
   * Files this process decodes at once (DECODE_CONCURRENCY), over all the chunk activities it runs: their decodes
   * share these slots (activities/ingest.ts), so two worker processes on the cores run no more decodes than one.
   */
  decodes: pLimit.Limit;
}

/**
 * Stores small derived bytes (a thumbnail, a frame) under their content. Writing the same bytes again is
 * harmless (puts are atomic), and cheaper than asking first: one request to a bucket instead of two.
 */
async function storeBytes(store: ObjectStore, bytes: Buffer): Promise<string> {
  const sha256 = sha256Hex(bytes);
  await store.put(blobKey(sha256), bytes);
  return sha256;
}

/** Stores the model input the decode made for the image blob `sha256` (per content and spec). */
async function storeModelInput(store: ObjectStore, sha256: string, facts: ImageFacts, spec: ModelInputSpec | undefined): Promise<void> {
  if (spec && facts.modelInput) await store.put(modelInputKey(sha256, spec), facts.modelInput);
}

function imageColumns(facts: ImageFacts, thumbSha256: string) {
  return {
    thumb_sha256: thumbSha256,
    format: facts.format,
    width: facts.width,
    height: facts.height,
    mean_luma: facts.meanLuma,
    sharpness: facts.sharpness,
    pixel_print: encodePrint(facts.print),
  };
}

/** A received file's label and split as custom metadata, in its transaction's fields (its folder, CSV or COCO row). */
function labelMetadata(file: UploadedFile): Record<string, string> {
  return {
    ...(file.label !== null && file.label_field !== null && { [file.label_field]: file.label }),
    ...(file.split !== null && file.split_field !== null && { [file.split_field]: file.split }),
  };
}

/** Decoded groups are written in one transaction per this many files. */
const WRITE_BATCH = 32;
function filesOf(selection: ChunkSelection): FileSelection {
  if ('mediaOf' in selection) throw ApplicationFailure.create({ message: 'a chunk of media has no files to decode', nonRetryable: true });
  return selection;
}

const brokenIssue = (error: Error): Issue[] => [{ type: 'broken', confidence: 1, details: { reason: error.message } }];

/**
 * Turns one chunk of uploaded files into media of the step's batch: decoded and validated (sharp / ffprobe),
 * thumbnails, pixel-quality issues, and sampled frames for videos. A file that cannot be decoded becomes a media
 * item with the issue `broken`. Files that already have media (an earlier attempt got that far) are skipped, so a
 * retried or resumed chunk never duplicates media. Several files are decoded at once (sharp works in libuv's
 * threads, so one activity keeps the cores busy), and their rows are written a batch at a time.
 */
export async function ingestChunk(deps: IngestDeps, live: Liveness, step: ChunkStep): Promise<{ files: number; ingested: number }> {
  const { db } = deps;
  const version = await headVersion(db, step.datasetId);
  const files = await chunkFiles(db, filesOf(step.selection), step.chunk);
  const done = await ingestedUploadIds(db, version.id, files.map((file) => file.id));
  const todo = files.filter((file) => !done.has(file.id));
  const report = createChunkProgressReporter(db, step, 'index', { from: 0, to: 0.5 }, 'Decoding media');
  let ingested = 0;
  // Files are decoded in the process's DECODE_CONCURRENCY slots without pause: rows are written WRITE_BATCH files at
  // a time, one write after another, while decoding goes on (a pause for each write left the cores idle).
  const decode = deps.decodes;
  const decoded: MediaGroup[] = [];
  let failure: { error: unknown } | undefined;
  let written: Promise<void> = Promise.resolve();
  const write = () => {
    const groups = decoded.splice(0);
    written = written.then(async () => {
      if (groups.length === 0) return;
      await insertMediaGroups(db, version.id, groups);
      ingested += groups.length;
      await report(done.size + ingested, files.length);
    });
    written.catch((error: unknown) => (failure ??= { error }));
  };
  await Promise.all(
    todo.map((file) =>
      decode(async () => {
        if (failure) return;
        live.heartbeat({ ingested });
        if (live.signal.aborted) {
          failure ??= { error: live.signal.reason };
          return;
        }
        try {
          decoded.push(await ingestFile(deps, live, step.batchId, file));
        } catch (error) {
          failure ??= { error };
          return;
        }
        if (decoded.length >= WRITE_BATCH) write();
      }),
    ),
  );
  // Every decode has ended: what was decoded is written (a retry skips it), then a failure is the activity's.
  write();
  await written;
  if (failure) throw failure.error;
  await report(files.length, files.length, true);
  return { files: files.length, ingested };
}

async function ingestImage(deps: IngestDeps, file: UploadedFile, base: NewMedia): Promise<MediaGroup> {
  const { store } = deps;
  try {
    const facts = await store.withLocalFile(blobKey(file.blob_sha256), (local) => analyzeImage(local, deps.modelInput));
    const [thumb] = await Promise.all([storeBytes(store, facts.thumbnail), storeModelInput(store, file.blob_sha256, facts, deps.modelInput)]);
    return { rows: [{ ...base, ...imageColumns(facts, thumb) }], issues: [pixelIssues(facts)] };
  } catch (error) {
    if (!(error instanceof UndecodableMediaError)) throw error;
    return { rows: [base], issues: [brokenIssue(error)] };
  }
}

async function ingestVideo(deps: IngestDeps, live: Liveness, file: UploadedFile, base: NewMedia): Promise<MediaGroup> {
  const { store } = deps;
  try {
    const { info, frames } = await store.withLocalFile(blobKey(file.blob_sha256), async (local) => {
      const info = await probeVideo(deps.video, local);
      return { info, frames: await extractFrames(deps.video, local, info, { ...deps.frames, signal: live.signal }) };
    });
    const frameRows: NewMedia[] = [];
    const frameIssues: Issue[][] = [];
    const prints: PixelPrint[] = [];
    let videoThumb: string | null = null;
    for (const frame of frames) {
      // A long video's frames take seconds: its task aborted or its workflow gone, the activity stops at the next one.
      heartbeatOrStop(live, { frame: frame.index });
      const facts = await analyzeImage(frame.jpeg, deps.modelInput);
      const thumb = await storeBytes(store, facts.thumbnail);
      prints.push(facts.print);
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
    repeatedFrames(prints).forEach((repeated, place) => (frameRows[place].repeat_of_frame = repeated === null ? null : frames[repeated].index));
    const video: NewMedia = {
      ...base,
      thumb_sha256: videoThumb,
      format: 'video',
      width: info.width,
      height: info.height,
      duration_ms: info.durationMs,
    };
    return { rows: [video, ...frameRows], issues: [[], ...frameIssues] };
  } catch (error) {
    if (!(error instanceof UndecodableMediaError)) throw error;
    return { rows: [base], issues: [brokenIssue(error)] };
  }
}

function ingestFile(deps: IngestDeps, live: Liveness, batchId: string, file: UploadedFile): Promise<MediaGroup> {
  const base: NewMedia = {
    kind: file.media_kind,
    uploaded_file_id: file.id,
    batch_id: batchId,
    file_name: file.file_name,
    blob_sha256: file.blob_sha256,
    size_bytes: Number(file.size_bytes),
    ...(file.label_field !== null && (file.label !== null || file.split !== null) && { custom_metadata: JSON.stringify(labelMetadata(file)) }),
  };
  return file.media_kind === 'IMAGE' ? ingestImage(deps, file, base) : ingestVideo(deps, live, file, base);
}

