/** Per component of one clustering level (indexed by its label, the smallest member index): members, frames, distinct videos. */
export interface ComponentCounts {
  size: Int32Array;
  frames: Int32Array;
  videos: Int32Array;
}

/**
 * Counts the members of each component of `labels`; `videoOf[i]` is the video item i is a frame of (a small
 * index), or -1 for an image. Typed arrays throughout: a million items need no object each.
 */
export function componentCounts(labels: Int32Array, videoOf: Int32Array): ComponentCounts {
  const count = labels.length;
  const counts = { size: new Int32Array(count), frames: new Int32Array(count), videos: new Int32Array(count) };
  const videoCount = videoOf.reduce((max, video) => Math.max(max, video + 1), 0);
  const seen = new Set<number>();
  for (let i = 0; i < count; i++) {
    const label = labels[i];
    counts.size[label]++;
    if (videoOf[i] < 0) continue;
    counts.frames[label]++;
    const pair = label * videoCount + videoOf[i];
    if (!seen.has(pair)) {
      seen.add(pair);
      counts.videos[label]++;
    }
  }
  return counts;
}
