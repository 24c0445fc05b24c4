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
  it('stops before the next frame once its signal is aborted, with the reason', async () => {
    const tools = defaultVideoTools();
    const file = makeVideo(3);
    const cancelled = new AbortController();
    cancelled.abort(new Error('activity cancelled'));
    await expect(extractFrames(tools, file, await probeVideo(tools, file), { everyMs: 100, maxFrames: 30, signal: cancelled.signal })).rejects.toThrow('activity cancelled');
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
