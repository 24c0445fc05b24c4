import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyzeImage } from '../../lib/media/imageAnalysis';
import { defaultVideoTools, extractFrames, probeVideo } from '../../lib/media/video';
import { repeatedFrames } from '../../lib/quality/repeatedFrames';
import { makeClip, makeStillClip, makeVideo, photo } from '../support/media';

/** The repeats of a real video's frames sampled a second apart, as ingestion prints them (from its decode). */
async function repeatsOf(file: string): Promise<Array<number | null>> {
  const tools = defaultVideoTools();
  const frames = await extractFrames(tools, file, await probeVideo(tools, file), { everyMs: 1000, maxFrames: 300 });
  const prints = await Promise.all(frames.map(async (frame) => (await analyzeImage(frame.jpeg)).print));
  return repeatedFrames(prints);
}

describe('frames of a video', () => {
  it('are the same bytes whether the video is decoded once or each frame is sought, on frame times and between them', async () => {
    const tools = defaultVideoTools();
    const file = makeVideo(3);
    const info = await probeVideo(tools, file);
    // 10 frames a second: every 200 ms puts each target on a frame's time, every 150 ms between two.
    for (const everyMs of [200, 150]) {
      const once = await extractFrames(tools, file, info, { everyMs, maxFrames: 300, seekPastIntervalMs: Infinity });
      const sought = await extractFrames(tools, file, info, { everyMs, maxFrames: 300, seekPastIntervalMs: 0 });
      expect(once.map((frame) => frame.timeMs)).toEqual(sought.map((frame) => frame.timeMs));
      expect(once.length).toBe(Math.floor(3000 / everyMs));
      once.forEach((frame, i) => expect(frame.jpeg.equals(sought[i].jpeg)).toBe(true));
      expect(new Set(once.map((frame) => frame.jpeg.toString('base64'))).size).toBe(once.length);
    }
  });

  it('stops once its signal is aborted, with the reason', async () => {
    const tools = defaultVideoTools();
    const file = makeVideo(3);
    const cancelled = new AbortController();
    cancelled.abort(new Error('activity cancelled'));
    for (const seekPastIntervalMs of [Infinity, 0]) {
      const options = { everyMs: 100, maxFrames: 30, signal: cancelled.signal, seekPastIntervalMs };
      await expect(extractFrames(tools, file, await probeVideo(tools, file), options)).rejects.toThrow('activity cancelled');
    }
  });
});

describe('repeated frames of a video', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'repeats-'));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('folds a still shot into its first frame and a closing black screen into the opening one', async () => {
    const repeats = await repeatsOf(makeStillClip(photo('chelsea'), 5, path.join(scratch, 'still.mp4')));
    expect(repeats).toEqual([null, null, 1, 1, 1, 1, 0]);
  });

  it('keeps the frames of a zoom apart, and its black opening apart from its picture', async () => {
    // 4 % closer each second: at most a pair of neighbouring seconds passes for one picture.
    const zoom = await repeatsOf(makeClip(photo('rocket'), 8, path.join(scratch, 'zoom.mp4')));
    expect(zoom).toHaveLength(9);
    expect(zoom.slice(0, 2)).toEqual([null, null]);
    expect(zoom.filter((repeat) => repeat === null).length).toBeGreaterThanOrEqual(7);
  });
});
