import { Worker } from 'node:worker_threads';
import { imagePixels, type EncodedImage, type ImageEncoder } from './imageEncoder';

type EncoderInfo = Pick<ImageEncoder, 'modelId' | 'dim' | 'hasClassifier' | 'input'>;

type ThreadMessage =
  | { ready: EncoderInfo }
  | { failed: string }
  | { id: number; encoded: EncodedImage[] }
  | { id: number; error: string };

/**
 * The thread's side: it loads the encoder (lib/ml/imageEncoder) and answers batches of model-input pixels.
 * Evaluated rather than a file, so it runs the same under node, tsx and jest (a .ts module is loaded through tsx).
 */
const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.module.endsWith('.ts')) require('tsx/cjs');
const { loadImageEncoder } = require(workerData.module);
loadImageEncoder(workerData.modelsDir, workerData.name, workerData.threads).then(
  (encoder) => {
    const { modelId, dim, hasClassifier, input } = encoder;
    parentPort.postMessage({ ready: { modelId, dim, hasClassifier, input } });
    parentPort.on('message', async ({ id, pixels }) => {
      try {
        const buffers = pixels.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength));
        parentPort.postMessage({ id, encoded: await encoder.encodePixels(buffers) });
      } catch (error) {
        parentPort.postMessage({ id, error: error.message });
      }
    });
  },
  (error) => parentPort.postMessage({ failed: error.message }),
);`;

interface Call {
  resolve(encoded: EncodedImage[]): void;
  reject(error: Error): void;
}

/**
 * Images per session run. A single-threaded session is cheapest per image on small batches: EfficientNet-Lite0
 * int8 took 4.2 CPU ms an image in runs of 2 against 5.2 in runs of 16 (fp32: 7.2 against 9.0), since a large
 * batch's activations no longer fit in the core's caches.
 */
const THREAD_BATCH = 2;

/** One inference thread: its session (one intra-op thread), and the batches it has been given and not answered. */
interface InferenceThread {
  worker: Worker;
  pending: Map<number, Call>;
}

/** Starts one thread and waits until its encoder is loaded; `fail` hears of its end afterwards. */
async function startThread(workerData: object, fail: (error: Error) => void): Promise<{ thread: InferenceThread; info: EncoderInfo }> {
  const worker = new Worker(THREAD_CODE, { eval: true, workerData });
  const thread = { worker, pending: new Map<number, Call>() };
  const info = await new Promise<EncoderInfo>((resolve, reject) => {
    const end = (error: Error) => {
      reject(error);
      fail(error);
    };
    worker.on('error', end);
    worker.on('exit', (code) => end(new Error(`an inference thread exited (code ${code})`)));
    worker.on('message', (message: ThreadMessage) => {
      if ('ready' in message) return resolve(message.ready);
      if ('failed' in message) return end(new Error(message.failed));
      const call = thread.pending.get(message.id);
      thread.pending.delete(message.id);
      if ('error' in message) call?.reject(new Error(message.error));
      else call?.resolve(message.encoded);
    });
  });
  return { thread, info };
}

/**
 * The image encoder in `threads` worker threads, each with a session of one intra-op thread; a batch is split into
 * runs of THREAD_BATCH images, each going to the thread with the fewest runs waiting. onnxruntime-node runs a session
 * on the calling thread and blocks its event loop for the whole run: in threads, the worker's event loop goes on
 * decoding, writing rows and heartbeating meanwhile. One session with several intra-op threads measured worse here
 * than as many single-threaded sessions (its threads spin while they wait, taking the cores decoding needs).
 */
export async function loadImageEncoderInThread(modelsDir: string, name: string, threads = 1): Promise<ImageEncoder> {
  let ended: Error | undefined;
  const pool: InferenceThread[] = [];
  const end = (error: Error) => {
    ended ??= error;
    for (const thread of pool) {
      for (const call of thread.pending.values()) call.reject(ended);
      thread.pending.clear();
    }
  };
  const workerData = { module: require.resolve('./imageEncoder'), modelsDir, name, threads: 1 };
  const starts = await Promise.allSettled(Array.from({ length: threads }, () => startThread(workerData, end)));
  const started = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
  pool.push(...started.map((entry) => entry.thread));
  const failed = starts.find((start) => start.status === 'rejected');
  if (failed) {
    // One thread that cannot load the model fails the whole encoder; the others must not keep the process alive.
    await Promise.all(pool.map((thread) => thread.worker.terminate()));
    throw failed.reason;
  }
  const { info } = started[0];
  let nextId = 0;

  /** A batch is split into runs of THREAD_BATCH images, spread over the threads. */
  async function encodePixels(pixels: Buffer[]): Promise<EncodedImage[]> {
    const runs: Buffer[][] = [];
    for (let i = 0; i < pixels.length; i += THREAD_BATCH) runs.push(pixels.slice(i, i + THREAD_BATCH));
    return (await Promise.all(runs.map(encodeInThread))).flat();
  }

  /** One run (never empty: encodePixels makes them) on the thread with the fewest runs waiting. */
  function encodeInThread(pixels: Buffer[]): Promise<EncodedImage[]> {
    if (ended) return Promise.reject(ended);
    const thread = pool.reduce((least, candidate) => (candidate.pending.size < least.pending.size ? candidate : least));
    return new Promise((resolve, reject) => {
      const id = nextId++;
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ id, pixels });
    });
  }

  async function encodeAndClassify(images: Array<string | Buffer>): Promise<EncodedImage[]> {
    return encodePixels(await Promise.all(images.map((image) => imagePixels(image, info.input))));
  }

  return {
    ...info,
    encodePixels,
    encodeAndClassify,
    encode: async (images) => (await encodeAndClassify(images)).map((encoded) => encoded.vector),
    close: async () => {
      ended ??= new Error('the image encoder is closed');
      await Promise.all(pool.map((thread) => thread.worker.terminate()));
    },
  };
}
