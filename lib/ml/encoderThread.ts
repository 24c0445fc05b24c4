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

/**
 * The image encoder in a worker thread of its own. onnxruntime-node runs a session on the calling thread and
 * blocks its event loop for the whole batch; in a thread, the worker's event loop goes on decoding, writing
 * rows and heartbeating meanwhile, so decoding and inference use the cores at the same time.
 */
export async function loadImageEncoderInThread(modelsDir: string, name: string, threads = 1): Promise<ImageEncoder> {
  const worker = new Worker(THREAD_CODE, { eval: true, workerData: { module: require.resolve('./imageEncoder'), modelsDir, name, threads } });
  const pending = new Map<number, { resolve(encoded: EncodedImage[]): void; reject(error: Error): void }>();
  let ended: Error | undefined;
  let nextId = 0;
  const info = await new Promise<EncoderInfo>((resolve, reject) => {
    const end = (error: Error) => {
      ended ??= error;
      reject(error);
      for (const call of pending.values()) call.reject(error);
      pending.clear();
    };
    worker.on('error', end);
    worker.on('exit', (code) => end(new Error(`the inference thread exited (code ${code})`)));
    worker.on('message', (message: ThreadMessage) => {
      if ('ready' in message) return resolve(message.ready);
      if ('failed' in message) return end(new Error(message.failed));
      const call = pending.get(message.id);
      pending.delete(message.id);
      if ('error' in message) call?.reject(new Error(message.error));
      else call?.resolve(message.encoded);
    });
  });

  function encodePixels(pixels: Buffer[]): Promise<EncodedImage[]> {
    if (ended) return Promise.reject(ended);
    if (pixels.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, pixels });
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
      await worker.terminate();
    },
  };
}
