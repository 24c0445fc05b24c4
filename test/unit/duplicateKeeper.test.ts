import sharp from 'sharp';
import { analyzeImage } from '../../lib/media/imageAnalysis';
import { suggestKeeper, type Candidate } from '../../lib/quality/duplicateKeeper';
import { photo } from '../support/media';

const uploaded = new Date('2026-12-01T10:00:00Z');
const candidate = (id: string, figures: Partial<Candidate> = {}): Candidate => ({
  id,
  fileName: `${id}.jpg`,
  width: 232,
  height: 195,
  sizeBytes: 27_700,
  format: 'jpeg',
  durationMs: null,
  createdAt: uploaded,
  issues: [],
  print: null,
  ...figures,
});

/** A candidate made from an encoded picture as the service sees it: its size, format and the print of its thumbnail. */
async function copyOf(id: string, picture: Buffer, createdAt = uploaded): Promise<Candidate> {
  const { width, height, format } = await sharp(picture).metadata();
  return { ...candidate(id), width: width!, height: height!, sizeBytes: picture.length, format: format!, createdAt, print: (await analyzeImage(picture)).print };
}

/** A holiday-album caption: a translucent dark band along the bottom with white text. */
const caption = (width: number, height: number) =>
  Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect x="0" y="${height * 0.88}" width="${width}" height="${height * 0.12}" fill="black" fill-opacity="0.45"/>` +
      `<text x="${width * 0.04}" y="${height * 0.96}" font-family="sans-serif" font-size="${height * 0.07}" fill="white">Summer trip, day 3</text></svg>`,
  );
const later = new Date(uploaded.getTime() + 60_000);

describe('the suggested keeper', () => {
  it('keeps the original over a resize, a crop and a re-encode, and names the fact that decided', () => {
    // The original carries a stale outliers flag from indexing; its copies arrived later without one.
    const original = candidate('original', { issues: ['outliers'] });
    expect(suggestKeeper([original, candidate('resized', { width: 139, height: 117, sizeBytes: 9_000, createdAt: later })])).toEqual({
      mediaId: 'original',
      reasons: ['more pixels: 232×195 over 139×117 (a smaller copy: resized, or cropped evenly)'],
      decidingFact: 'pixels',
    });
    expect(suggestKeeper([original, candidate('cropped', { width: 220, height: 176, createdAt: later })])).toEqual({
      mediaId: 'original',
      reasons: ['more pixels: 232×195 over 220×176 (a crop)'],
      decidingFact: 'pixels',
    });
    expect(suggestKeeper([original, candidate('q60', { sizeBytes: 13_700, createdAt: later })])).toEqual({
      mediaId: 'original',
      reasons: ['more bits per pixel: 4.90 (28 kB) over 2.42 (14 kB) (a re-encode at lower quality)'],
      decidingFact: 'bits_per_pixel',
    });
  });

  it('weighs the facts in order and lists each one that set a copy aside', () => {
    const suggestion = suggestKeeper([
      candidate('q60', { sizeBytes: 13_700 }),
      candidate('small', { width: 100, height: 84 }),
      candidate('original', { createdAt: later }),
    ]);
    expect(suggestion.mediaId).toBe('original');
    expect(suggestion.decidingFact).toBe('bits_per_pixel');
    expect(suggestion.reasons.map((reason) => reason.split(':')[0])).toEqual(['more pixels', 'more bits per pixel']);
  });

  it('prefers a decodable copy, a lossless encoding, fewer issues of its own pixels, then the earlier upload and the name', () => {
    expect(suggestKeeper([candidate('big', { width: 900, height: 900, issues: ['broken'] }), candidate('ok')]).decidingFact).toBe('decodable');
    expect(suggestKeeper([candidate('jpeg', { sizeBytes: 90_000 }), candidate('png', { format: 'png', fileName: 'png.png' })])).toMatchObject({ mediaId: 'png', decidingFact: 'lossless' });
    expect(suggestKeeper([candidate('blurred', { issues: ['blur', 'outliers'] }), candidate('sharp', { createdAt: later })])).toEqual({
      mediaId: 'sharp',
      reasons: ['fewer quality issues: none over blur'],
      decidingFact: 'quality_issues',
    });
    expect(suggestKeeper([candidate('a', { createdAt: later, issues: ['outliers'] }), candidate('b')])).toMatchObject({ mediaId: 'b', decidingFact: 'earlier_upload' });
    // A video's encoding is weighed a second at a time: a copy behind an intro is longer, not better encoded; a re-encode is.
    const clip = { width: 320, height: 240, format: 'mov,mp4,m4a,3gp,3g2,mj2', durationMs: 9_000, sizeBytes: 90_000 };
    expect(suggestKeeper([candidate('with-intro', { ...clip, durationMs: 12_000, sizeBytes: 120_000 }), candidate('clip', { ...clip, createdAt: later })]).decidingFact).toBe('earlier_upload');
    expect(suggestKeeper([candidate('crf35', { ...clip, sizeBytes: 40_000 }), candidate('clip', { ...clip, createdAt: later })])).toMatchObject({ mediaId: 'clip', decidingFact: 'bits_per_pixel' });
    expect(suggestKeeper([candidate('b'), candidate('a')])).toEqual({ mediaId: 'a', reasons: ['as good as b.jpg by every fact: first by name'], decidingFact: 'file_name' });
    // A copy's name adds to its original's; ICU order alone would put "astronaut_copy" before "astronaut".
    expect(suggestKeeper([candidate('astronaut_copy'), candidate('astronaut')])).toEqual({ mediaId: 'astronaut', reasons: ['as good as astronaut_copy.jpg by every fact: the shorter name'], decidingFact: 'file_name' });
    expect(suggestKeeper([candidate('new', { width: 900, height: 900 }), candidate('old')], new Set(['old']))).toEqual({
      mediaId: 'old',
      reasons: ['kept when this group was decided before'],
      decidingFact: 'kept_before',
    });
  });

  it.each(['rocket', 'chelsea', 'astronaut'])('keeps %s over its caption overlay and brightness shift uploaded before it: the least edited copy', async (name) => {
    const original = await sharp(photo(name)).jpeg({ quality: 85 }).toBuffer();
    const { width, height } = await sharp(original).metadata();
    const copies = [
      await copyOf('captioned', await sharp(original).composite([{ input: caption(width!, height!) }]).jpeg({ quality: 85 }).toBuffer()),
      await copyOf('brighter', await sharp(original).modulate({ brightness: 1.2 }).jpeg({ quality: 85 }).toBuffer()),
      await copyOf('smaller', await sharp(original).resize(Math.round(width! * 0.6)).jpeg({ quality: 85 }).toBuffer()),
    ];
    const suggestion = suggestKeeper([...copies, await copyOf('the-original-photo', original, later)]);
    expect(suggestion).toMatchObject({ mediaId: 'the-original-photo', decidingFact: 'least_edited' });
    expect(suggestion.reasons[1]).toMatch(/^least edited: closest to the other copies \(pixels \d+\.\d grey levels from them on average, against \d+\.\d, \d+\.\d: /);
    // Two copies alone are as far from each other: the step cannot tell them apart and leaves it to the later facts.
    expect(suggestKeeper([copies[0], await copyOf('the-original-photo', original, later)]).decidingFact).not.toBe('least_edited');
  });
});
