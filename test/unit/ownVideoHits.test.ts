import { frameSearchDepth, frameVideosFrom, hitsPastOwnVideo, OWN_VIDEO } from '../../lib/clustering/ownVideoHits';

const hit = (id: string, distance: number) => ({ id, distance });

describe('a frame’s neighbours past its own video', () => {
  // Video v has frames f0..f7 that are nearer each other than anything else; c0 and c1 are frames of its copy, i an image.
  const videos = frameVideosFrom([...Array.from({ length: 8 }, (_, i): [string, string] => [`f${i}`, 'v']), ['c0', 'copy'], ['c1', 'copy']]);
  const hits = [hit('f0', 0), ...Array.from({ length: 7 }, (_, i) => hit(`f${i + 1}`, 0.001 * (i + 1))), hit('c0', 0.02), hit('i', 0.03), hit('c1', 0.04)];

  it('keeps itself, its nearest own frames up to the cap, then the nearest other media', () => {
    const kept = hitsPastOwnVideo(hits, 'f0', videos, 6);
    expect(kept.map((h) => h.id)).toEqual(['f0', 'f1', 'f2', 'f3', 'c0', 'i']);
    expect(OWN_VIDEO.neighbours).toBe(3);
  });

  it('leaves an image’s hits as found', () => {
    expect(hitsPastOwnVideo(hits, 'i', videos, 4).map((h) => h.id)).toEqual(['f0', 'f1', 'f2', 'f3']);
  });

  it('searches deeper by the own frames it leaves out, up to a bound', () => {
    expect(frameSearchDepth(11, 1)).toBe(11);
    expect(frameSearchDepth(11, 4)).toBe(11);
    expect(frameSearchDepth(11, 8)).toBe(15);
    expect(frameSearchDepth(11, 300)).toBe(11 + OWN_VIDEO.extraDepth);
    expect(videos.framesOf('v')).toBe(8);
    expect(videos.videoOf('i')).toBeUndefined();
  });
});
