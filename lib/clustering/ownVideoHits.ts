import type { VectorHit } from '../vectors/vectorStore';

/**
 * A frame's graph neighbours hold at most OWN_VIDEO.neighbours frames of its own video; the rest of its list is the
 * nearest other media. Without the cap a slow video's frames fill each other's lists, and a copy of the video is
 * never a neighbour (docs/decisions.md "Copies of one video clip are one duplicate group").
 */
export const OWN_VIDEO = {
  /** Its own video's frames a frame keeps: enough to chain the video's frames into one cluster. */
  neighbours: 3,
  /** How much deeper than the list a frame's search may go to reach past its own video's frames. */
  extraDepth: 30,
};

/** Which video a searched or found item is a frame of (undefined for an image or an unknown item), and how many frames a video has. */
export interface FrameVideos {
  videoOf(id: string): string | undefined;
  framesOf(video: string): number;
}

/** How many hits a frame of a video of `frames` frames asks for, so that `k` remain past the own frames it leaves out. */
export function frameSearchDepth(k: number, frames: number): number {
  return k + Math.min(Math.max(0, frames - 1 - OWN_VIDEO.neighbours), OWN_VIDEO.extraDepth);
}

/** The first `k` of a frame's hits (nearest first), itself included, with at most OWN_VIDEO.neighbours other frames of its video. */
export function hitsPastOwnVideo(hits: readonly VectorHit[], self: string, videos: FrameVideos, k: number): VectorHit[] {
  const video = videos.videoOf(self);
  const kept: VectorHit[] = [];
  let own = 0;
  for (const hit of hits) {
    if (kept.length === k) break;
    if (hit.id !== self && video !== undefined && videos.videoOf(hit.id) === video) {
      if (own === OWN_VIDEO.neighbours) continue;
      own++;
    }
    kept.push(hit);
  }
  return kept;
}

/** FrameVideos over items whose video is known by id. */
export function frameVideosFrom(entries: Iterable<[id: string, video: string]>): FrameVideos {
  const videoOf = new Map<string, string>();
  const frames = new Map<string, number>();
  for (const [id, video] of entries) {
    videoOf.set(id, video);
    frames.set(video, (frames.get(video) ?? 0) + 1);
  }
  return { videoOf: (id) => videoOf.get(id), framesOf: (video) => frames.get(video) ?? 0 };
}
