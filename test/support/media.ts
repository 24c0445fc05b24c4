import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultVideoTools } from '../../lib/media/video';

export const photosDir = path.join(__dirname, '..', 'fixtures', 'photos');
export const photo = (name: string) => path.join(photosDir, `${name}.jpg`);
export const PHOTO_NAMES = ['chelsea', 'coffee', 'astronaut', 'rocket', 'motorcycle_left', 'camera', 'grace_hopper', 'hubble_deep_field'];

/** A real H.264 video made with the packaged ffmpeg (test pattern, `seconds` long). */
export function makeVideo(seconds: number, extension = 'mp4'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'video-'));
  const file = path.join(dir, `pattern.${extension}`);
  execFileSync(defaultVideoTools().ffmpeg, [
    '-v', 'error', '-f', 'lavfi', '-i', `testsrc=duration=${seconds}:size=320x240:rate=10`,
    '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-y', file,
  ]);
  return file;
}

export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 60_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await read();
    if (accept(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
