import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import ffprobeInstaller from '@ffprobe-installer/ffprobe';
import { UndecodableMediaError } from './imageAnalysis';

const run = promisify(execFile);

export interface VideoTools {
  ffmpeg: string;
  ffprobe: string;
}

/** ffmpeg and ffprobe from the npm packages that ship them; FFMPEG_PATH / FFPROBE_PATH override. */
export function defaultVideoTools(env: NodeJS.ProcessEnv = process.env): VideoTools {
  return { ffmpeg: env.FFMPEG_PATH ?? ffmpegInstaller.path, ffprobe: env.FFPROBE_PATH ?? ffprobeInstaller.path };
}

export interface VideoInfo {
  width: number;
  height: number;
  durationMs: number;
  fps: number;
}

export async function probeVideo(tools: VideoTools, file: string): Promise<VideoInfo> {
  try {
    const { stdout } = await run(tools.ffprobe, [
      '-v', 'error',
      '-select_streams', 'v:0',
      '-show_entries', 'stream=width,height,avg_frame_rate,duration:format=duration',
      '-of', 'json',
      file,
    ]);
    const parsed = JSON.parse(stdout) as { streams?: Array<Record<string, string | number>>; format?: { duration?: string } };
    const stream = parsed.streams?.[0];
    if (!stream) throw new Error('no video stream');
    const [num, den] = String(stream.avg_frame_rate ?? '0/1').split('/').map(Number);
    const duration = Number(parsed.format?.duration ?? stream.duration ?? 0);
    return {
      width: Number(stream.width),
      height: Number(stream.height),
      durationMs: Math.round(duration * 1000),
      fps: den ? num / den : 0,
    };
  } catch (error) {
    throw new UndecodableMediaError(`cannot read video: ${(error as Error).message.split('\n')[0]}`);
  }
}

export interface ExtractedFrame {
  index: number;
  timeMs: number;
  jpeg: Buffer;
}

/**
 * Frames sampled evenly: one every `everyMs` (at least one, at most `maxFrames`), as JPEG.
 * Frame i is taken at i * interval + interval / 2, so short clips still yield their middle frame.
 * An aborted `signal` stops it before the next frame with the signal's reason.
 */
export async function extractFrames(
  tools: VideoTools,
  file: string,
  info: VideoInfo,
  options: { everyMs: number; maxFrames: number; signal?: AbortSignal },
): Promise<ExtractedFrame[]> {
  const count = Math.max(1, Math.min(options.maxFrames, Math.floor(info.durationMs / options.everyMs)));
  const interval = info.durationMs > 0 ? info.durationMs / count : 0;
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'frames-'));
  try {
    const frames: ExtractedFrame[] = [];
    for (let index = 0; index < count; index++) {
      options.signal?.throwIfAborted();
      // Never seek past the start of the last frame, where ffmpeg would decode nothing.
      const lastFrameMs = info.fps > 0 ? info.durationMs - 1000 / info.fps : info.durationMs;
      const timeMs = Math.round(Math.min(index * interval + interval / 2, Math.max(0, lastFrameMs)));
      const target = path.join(dir, `${index}.jpg`);
      await run(tools.ffmpeg, ['-v', 'error', '-ss', (timeMs / 1000).toFixed(3), '-i', file, '-frames:v', '1', '-q:v', '2', '-y', target]);
      const jpeg = await fs.readFile(target).catch(() => undefined);
      if (jpeg && jpeg.length > 0) frames.push({ index, timeMs, jpeg });
    }
    if (frames.length === 0) throw new UndecodableMediaError('no frame could be decoded');
    return frames;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
