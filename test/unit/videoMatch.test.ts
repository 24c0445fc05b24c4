import { clipReason, matchClips, type FramePair } from '../../lib/quality/videoMatch';

/** Frames sampled a second apart, centred in their second (as ingestion samples them). */
const at = (second: number) => second * 1000 + 500;
const pairs = (seconds: Array<[number, number]>, similarity = 0.97): FramePair[] => seconds.map(([a, b]) => ({ timeA: at(a), timeB: at(b), similarity }));

describe('videos that are one clip', () => {
  it('finds a clip behind a 3-second intro, and says where it starts', () => {
    const match = matchClips(pairs([0, 1, 2, 3, 4, 5, 6, 7, 8].map((second) => [second, second + 3])), 9, 12);
    expect(match).toEqual({ matched: 9, frames: 9, shiftMs: 3000, similarity: expect.closeTo(0.97) });
    expect(clipReason(match!)).toBe('same clip: 9 of 9 frames in order, 3.0 s later in the other copy (an intro there, or a trimmed start here)');
  });

  it('finds a copy trimmed at the start whose frames fall between the original\'s, and a re-encode with a few frames unmatched', () => {
    // Trimmed by 2.3 s: each of its frames lies 0.3 s after one of the original's and 0.7 s before the next; both pair.
    const trimmed = pairs([2, 3, 4, 5, 6, 7].flatMap((second): Array<[number, number]> => [[second, second - 2], [second + 1, second - 2]]));
    expect(matchClips(trimmed, 9, 6)).toMatchObject({ matched: 6, frames: 6 });
    expect(clipReason(matchClips(trimmed, 9, 6)!)).toMatch(/^same clip: 6 of 6 frames in order, [12]\.\d s earlier in the other copy/);
    expect(matchClips(pairs([[0, 0], [2, 2], [3, 3], [5, 5], [8, 8]]), 9, 9)).toMatchObject({ matched: 5, frames: 9, shiftMs: 0 });
  });

  it('does not join clips that share only a black opening, a few look-alike frames, or frames out of order', () => {
    expect(matchClips(pairs([[0, 0]], 1), 9, 9)).toBeNull();
    expect(matchClips(pairs([[0, 0], [4, 4]]), 4, 4)).toBeNull();
    // Four of nine frames pair, each at another shift: look-alike scenes, not one clip.
    expect(matchClips(pairs([[0, 6], [3, 1], [5, 8], [8, 2]]), 9, 9)).toBeNull();
    // Consistent but under half of the shorter video.
    expect(matchClips(pairs([[1, 1], [2, 2], [3, 3], [4, 4]]), 10, 10)).toBeNull();
    expect(matchClips([], 9, 9)).toBeNull();
  });
});
