import { Worker } from 'node:worker_threads';
import type { PixelPrint, PrintMatch } from './pixelMatch';

/**
 * The thread's side: matchPrints (lib/quality/pixelMatch) on the pairs of each message. A message's prints arrive as
 * one structured clone, so a print named by several of its pairs is one object there too (its samples made once).
 * Evaluated rather than a file, so it runs the same under node, tsx and jest (a .ts module is loaded through tsx).
 */
const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
if (workerData.module.endsWith('.ts')) require('tsx/cjs');
const { matchPrints } = require(workerData.module);
parentPort.on('message', ({ id, pairs }) => {
  try {
    parentPort.postMessage({ id, matches: pairs.map(([a, b]) => matchPrints(a, b)) });
  } catch (error) {
    parentPort.postMessage({ id, error: error.message });
  }
});`;

type ThreadMessage = { id: number; matches: PrintMatch[] } | { id: number; error: string };

export interface PrintMatchThread {
  /** matchPrints(a, b) of each pair, in order, computed on the thread. */
  matchAll(pairs: Array<readonly [PixelPrint, PixelPrint]>): Promise<PrintMatch[]>;
  close(): Promise<void>;
}

/**
 * A thread that matches prints while the calling thread does too: the pixel check is JavaScript, so a worker matching
 * a round's pairs alone keeps one core busy and leaves the other idle. A match depends on its two prints alone, so
 * where it is computed changes nothing. A thread that ends fails its calls (the caller matches those pairs itself).
 */
export function startPrintMatchThread(): PrintMatchThread {
  const worker = new Worker(THREAD_CODE, { eval: true, workerData: { module: require.resolve('./pixelMatch') } });
  const pending = new Map<number, { resolve(matches: PrintMatch[]): void; reject(error: Error): void }>();
  let ended: Error | undefined;
  const end = (error: Error) => {
    ended ??= error;
    for (const call of pending.values()) call.reject(ended);
    pending.clear();
  };
  worker.on('error', end);
  worker.on('exit', (code) => end(new Error(`the print match thread exited (code ${code})`)));
  worker.on('message', (message: ThreadMessage) => {
    const call = pending.get(message.id);
    pending.delete(message.id);
    if ('error' in message) call?.reject(new Error(message.error));
    else call?.resolve(message.matches);
  });
  let nextId = 0;
  return {
    matchAll(pairs) {
      if (ended) return Promise.reject(ended);
      if (pairs.length === 0) return Promise.resolve([]);
      return new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, pairs });
      });
    },
    async close() {
      ended ??= new Error('the print match thread is closed');
      await worker.terminate();
    },
  };
}
