import { sameWholePicture, wholeSampleOf, type PixelPrint, type WholeSample } from './pixelMatch';

/**
 * Frames of one video that repeat an earlier one: blank (a black or one-colour screen) like an earlier blank frame, or
 * the same picture by the pixel check (a still shot, a slow pan). Explore shows the first of them and exports leave
 * the rest out unless asked (docs/decisions.md "Repeated frames of a video"). Pure.
 */
export const REPEATED_FRAMES = {
  /** A frame whose print's grey levels spread less than this is blank. */
  blankSpread: 4,
  /** Two blank frames are one screen when their mean grey levels are this close. */
  blankMeanGap: 12,
  /** The latest distinct frames a frame is compared with: a 300-frame video of distinct shots costs 300 × this comparisons. */
  compared: 64,
};

const blank = (frame: WholeSample) => frame.spread < REPEATED_FRAMES.blankSpread;

function sameScreen(a: WholeSample, b: WholeSample): boolean {
  if (blank(a) || blank(b)) return blank(a) && blank(b) && Math.abs(a.mean - b.mean) < REPEATED_FRAMES.blankMeanGap;
  return sameWholePicture(a, b);
}

/** For each of a video's frames in time order (their prints), the place of the earlier distinct frame it repeats, or null for a distinct frame. */
export function repeatedFrames(prints: readonly PixelPrint[]): Array<number | null> {
  const distinct: Array<{ place: number; sample: WholeSample }> = [];
  return prints.map((print, place) => {
    const sample = wholeSampleOf(print);
    // The most recent first: a repeat is most often of the shot just before.
    for (let d = distinct.length - 1; d >= Math.max(0, distinct.length - REPEATED_FRAMES.compared); d--) {
      if (sameScreen(sample, distinct[d].sample)) return distinct[d].place;
    }
    distinct.push({ place, sample });
    return null;
  });
}
