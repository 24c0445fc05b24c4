import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Writes with back-pressure: waits while the reader is behind. */
export async function send(out: Writable, chunk: string | Uint8Array): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/** Ends `out` once everything written has been taken. */
export function end(out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    out.once('error', reject);
    out.end(() => resolve());
  });
}

/**
 * Stops `out` where it is, its output to be thrown away. A file stream destroyed while a write of its is under way
 * emits ERR_STREAM_DESTROYED as an 'error' event when that write completes: heard here, where no one else listens
 * any more, instead of crashing the process.
 */
export function discard(out: Writable): void {
  out.on('error', () => undefined);
  out.destroy();
}
