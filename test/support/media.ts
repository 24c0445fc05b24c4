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

/** How a clip made by makeClip is changed from the one it copies. */
export interface ClipVariant {
  /** Seconds of a test pattern before the clip (another intro). */
  introSeconds?: number;
  /** Seconds cut from the clip's start. */
  trimSeconds?: number;
  /** The frame size (640×360 unless given) and x264's constant rate factor (23 unless given). */
  size?: string;
  crf?: number;
}

/**
 * A real H.264 clip of a picture (a file): one black second, then `seconds` of a slow zoom into it (640×360, 10 fps),
 * changed as `variant` says; written to `file`.
 */
export function makeClip(picture: string, seconds: number, file: string, variant: ClipVariant = {}): string {
  const inputs = ['-f', 'lavfi', '-i', 'color=black:s=640x360:r=10:d=1', '-loop', '1', '-framerate', '10', '-t', String(seconds), '-i', picture];
  const pan = "[1:v]scale=960:540,zoompan=z='1+0.004*on':x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':d=1:s=640x360:fps=10,setsar=1[pan]";
  const intro = variant.introSeconds ? `testsrc=duration=${variant.introSeconds}:size=640x360:rate=10,setsar=1[intro];` : '';
  const parts = variant.introSeconds ? '[intro][black][pan]concat=n=3:v=1' : '[black][pan]concat=n=2:v=1';
  const finish = `[clip]trim=start=${variant.trimSeconds ?? 0},setpts=PTS-STARTPTS,scale=${(variant.size ?? '640x360').replace('x', ':')}[out]`;
  execFileSync(defaultVideoTools().ffmpeg, [
    '-v', 'error', ...inputs,
    '-filter_complex', `${intro}[0:v]setsar=1[black];${pan};${parts}[clip];${finish}`,
    '-map', '[out]', '-c:v', 'libx264', '-crf', String(variant.crf ?? 23), '-pix_fmt', 'yuv420p', '-y', file,
  ]);
  return file;
}

/** A real H.264 clip of a picture held still for `seconds` between a black second at each end (640×360, 10 fps, x264 at `crf`), written to `file`. */
export function makeStillClip(picture: string, seconds: number, file: string, crf = 23): string {
  const black = 'color=black:s=640x360:r=10:d=1';
  execFileSync(defaultVideoTools().ffmpeg, [
    '-v', 'error', '-f', 'lavfi', '-i', black, '-loop', '1', '-framerate', '10', '-t', String(seconds), '-i', picture, '-f', 'lavfi', '-i', black,
    '-filter_complex', '[0:v]setsar=1[a];[1:v]scale=640:360,setsar=1[b];[2:v]setsar=1[c];[a][b][c]concat=n=3:v=1[out]',
    '-map', '[out]', '-c:v', 'libx264', '-crf', String(crf), '-pix_fmt', 'yuv420p', '-y', file,
  ]);
  return file;
}

export async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 60_000, what = 'condition', intervalMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await read();
    if (accept(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
