/**
 * Videos that are one clip: re-encoded, resized, trimmed at either end or behind another intro, found from the
 * pairs between their sampled frames (the analysis pairs frames of different videos only). Pure.
 */

/** A pair of frames of two videos: when each was sampled and how alike they are. */
export interface FramePair {
  timeA: number;
  timeB: number;
  similarity: number;
}

export const VIDEO_MATCH = {
  /** The share of the shorter video's frames that must match the other's, in order. */
  share: 0.5,
  /** The fewest frames that must match: a lone shared frame (a black opening, a logo) is not a clip. */
  frames: 3,
  /** How far a matched frame's time shift may be from the clip's (ms): frames are sampled a second apart. */
  shiftTolerance: 1000,
};

export interface ClipMatch {
  /** Frames of the shorter video matched in order, and how many it has. */
  matched: number;
  frames: number;
  /** How much later (ms) the clip starts in B than in A: an intro added to B, or A's start trimmed. */
  shiftMs: number;
  /** Mean similarity of the matched frames. */
  similarity: number;
}

/**
 * Whether two videos of `framesA` and `framesB` sampled frames are one clip: the time shift most of their frame
 * pairs agree on is the clip's, and the frames matched at that shift (each counted once) must be at least
 * VIDEO_MATCH.frames and VIDEO_MATCH.share of the shorter video's. Null when they are not one clip.
 */
export function matchClips(pairs: FramePair[], framesA: number, framesB: number): ClipMatch | null {
  let best: FramePair[] = [];
  for (const candidate of pairs) {
    const shift = candidate.timeB - candidate.timeA;
    const agreeing = pairs.filter((pair) => Math.abs(pair.timeB - pair.timeA - shift) <= VIDEO_MATCH.shiftTolerance);
    if (agreeing.length > best.length) best = agreeing;
  }
  const matched = Math.min(new Set(best.map((pair) => pair.timeA)).size, new Set(best.map((pair) => pair.timeB)).size);
  const frames = Math.min(framesA, framesB);
  if (matched < VIDEO_MATCH.frames || matched < VIDEO_MATCH.share * frames) return null;
  const shifts = best.map((pair) => pair.timeB - pair.timeA).sort((a, b) => a - b);
  return {
    matched,
    frames,
    shiftMs: shifts[Math.floor(shifts.length / 2)],
    similarity: best.reduce((sum, pair) => sum + pair.similarity, 0) / best.length,
  };
}

/** Why video A is a copy of B, as the curator reads it: "same clip: 9 of 10 frames in order, 3.0 s later in the other copy (…)". */
export function clipReason(match: ClipMatch): string {
  const seconds = Math.abs(match.shiftMs) / 1000;
  const shift = seconds < 0.5 ? '' : `, ${seconds.toFixed(1)} s ${match.shiftMs > 0 ? 'later in the other copy (an intro there, or a trimmed start here)' : 'earlier in the other copy (a trimmed start there, or an intro here)'}`;
  return `same clip: ${match.matched} of ${match.frames} frames in order${shift}`;
}
