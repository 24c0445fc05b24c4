import type { Readable } from 'node:stream';

/** Where media blobs and thumbnails live: a local folder by default, S3-compatible when configured. */
export interface ObjectStore {
  /** Moves a local file in under `key`; when the key already exists the file is just removed. */
  putFile(key: string, localPath: string): Promise<void>;
  put(key: string, data: Buffer): Promise<void>;
  /**
   * Stores everything `source` yields under `key` without holding it in memory; readers see the
   * object only once it is whole. Returns the bytes stored.
   */
  putStream(key: string, source: Readable): Promise<number>;
  get(key: string): Promise<Buffer>;
  getStream(key: string): Promise<Readable>;
  exists(key: string): Promise<boolean>;
  /** Removes the object; removing one that is not there is no error. */
  delete(key: string): Promise<void>;
  /** The keys of the objects under `folder` (ending in `/`), in no set order; one removed meanwhile may still be listed. */
  list(folder: string): AsyncIterable<string>;
  /** Runs `fn` with a local path holding the object (tools like ffmpeg need a file). */
  withLocalFile<T>(key: string, fn: (localPath: string) => Promise<T>): Promise<T>;
}

/** Blobs are content-addressed: the same bytes are stored once and shared by datasets, snapshots and copies. */
export function blobKey(sha256: string): string {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`not a sha256 hex digest: ${sha256}`);
  return `blobs/${sha256.slice(0, 2)}/${sha256.slice(2, 4)}/${sha256}`;
}

/** The folder of every prepared model input (the storage collector removes those nothing will read). */
export const MODEL_INPUTS = 'model-inputs/';

/**
 * Where the ingest keeps an image's model input (raw RGB, `size` x `size` x 3 bytes) for the model
 * input spec it was made for, keyed by the image blob's content: the embedding stage reads it instead
 * of decoding the image again, then removes it (150 KB an image is not worth keeping). Media without
 * one (ingested before it existed, or whose input a concurrent embedding of the same bytes removed)
 * are decoded.
 */
export function modelInputKey(sha256: string, spec: { size: number; resize: string }): string {
  if (!/^[a-z-]+$/.test(spec.resize) || !Number.isInteger(spec.size)) throw new Error(`not a model input spec: ${spec.size} ${spec.resize}`);
  return `${MODEL_INPUTS}${spec.size}-${spec.resize}/${blobKey(sha256).slice('blobs/'.length)}`;
}

/** Where an export task's archive is kept. */
export function exportArchiveKey(taskId: string, fileName: string): string {
  if (!/^[0-9a-f-]{36}$/.test(taskId) || fileName.includes('/') || fileName.includes('\\')) {
    throw new Error(`not an export archive: ${taskId}/${fileName}`);
  }
  return `exports/${taskId}/${fileName}`;
}
