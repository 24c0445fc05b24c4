import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createReadyDataset, waitForTask } from '../support/datasets';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { labelledFixture } from '../support/labelledImages';
import { photo, PHOTO_NAMES } from '../support/media';
import { startTestStack } from '../support/testStack';

interface Pair {
  media_id: string;
  duplicate_of: string;
  similarity: number;
  tier: string;
  reason: string;
}
interface Group {
  members: Array<{ media_id: string; file_name: string }>;
  pairs: Pair[];
}

/**
 * Copies of a photo as bench:duplicates-quality plants them: the same bytes, a 60 % resize, a quality-50 re-encode, a
 * 5 % centre crop and a 20 % brighter copy, each but the first written by mozjpeg at quality 85 unless re-encoded.
 */
async function plantFamily(name: string, into: (file: string) => string): Promise<string[]> {
  const original = photo(name);
  const { width, height } = await sharp(original).metadata();
  const [w, h] = [Math.round(width! * 0.95), Math.round(height! * 0.95)];
  const write = (image: sharp.Sharp, kind: string, quality = 85) => image.jpeg({ quality, mozjpeg: true }).toFile(into(`${name}_${kind}.jpg`));
  fs.copyFileSync(original, into(`${name}_copy.jpg`));
  await write(sharp(original).resize(Math.round(width! * 0.6)), 'small');
  await write(sharp(original), 'q50', 50);
  await write(sharp(original).extract({ left: Math.round((width! - w) / 2), top: Math.round((height! - h) / 2), width: w, height: h }), 'crop');
  await write(sharp(original).modulate({ brightness: 1.2 }), 'bright');
  return ['copy', 'small', 'q50', 'crop', 'bright'].map((kind) => into(`${name}_${kind}.jpg`));
}

/**
 * Duplicate tiers through the real API and worker: real photos with planted copies (the same bytes, a 60 % resize, a
 * quality-45 re-encode, a 5 % crop, a brighter copy, and a family of five copies of one photo) among 100 Fashion-MNIST
 * items, many of them distinct look-alikes.
 */
describe('duplicate tiers', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let datasetId: string;
  let family: string[];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tiers-'));
  const planted = (name: string) => path.join(scratch, name);
  const base = () => `/api/v1/dataset/${datasetId}/duplicates`;
  const review = async (query: Record<string, string> = {}) => (await stack.request.get(base()).query({ page_size: 200, ...query }).expect(200)).body as { groups: Group[]; total: number };
  const fileNames = (group: Group) => group.members.map((member) => member.file_name).sort();
  const groupsOf = (groups: Group[], photoName: string) => groups.filter((group) => group.members.some((member) => member.file_name.startsWith(photoName)));
  const pairsOf = (groups: Group[]) =>
    groups.flatMap((group) => {
      const name = new Map(group.members.map((member) => [member.media_id, member.file_name]));
      return group.pairs.map((pair) => ({ ...pair, names: [name.get(pair.media_id), name.get(pair.duplicate_of)].sort().join(' ') }));
    });

  beforeAll(async () => {
    fs.copyFileSync(photo('chelsea'), planted('chelsea_copy.jpg'));
    const coffee = await sharp(photo('coffee')).metadata();
    await sharp(photo('coffee')).resize(Math.round(coffee.width! * 0.6)).jpeg({ quality: 90 }).toFile(planted('coffee_small.jpg'));
    await sharp(photo('astronaut')).jpeg({ quality: 45 }).toFile(planted('astronaut_q45.jpg'));
    const rocket = await sharp(photo('rocket')).metadata();
    await sharp(photo('rocket')).extract({ left: 0, top: 0, width: Math.round(rocket.width! * 0.95), height: Math.round(rocket.height! * 0.95) }).toFile(planted('rocket_crop.jpg'));
    await sharp(photo('camera')).modulate({ brightness: 1.2 }).toFile(planted('camera_bright.jpg'));
    family = await plantFamily('motorcycle_left', planted);
    const fashion = await labelledFixture(100, 0, scratch);
    stack = await startTestStack();
    datasetId = await createReadyDataset(stack, 'tiers', [
      ...PHOTO_NAMES.map(photo),
      ...['chelsea_copy.jpg', 'coffee_small.jpg', 'astronaut_q45.jpg', 'rocket_crop.jpg', 'camera_bright.jpg'].map(planted),
      ...family,
      ...fashion.files,
    ]);
  }, 300_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('says each planted copy\'s tier and why, and groups no distinct look-alikes by default', async () => {
    const { groups } = await review();
    const pairs = pairsOf(groups);
    const reasonOf = (names: string) => pairs.find((pair) => pair.names === names);
    expect(reasonOf('chelsea.jpg chelsea_copy.jpg')).toMatchObject({ tier: 'exact', reason: 'same bytes' });
    expect(reasonOf('coffee.jpg coffee_small.jpg')).toMatchObject({ tier: 'near_identical', reason: expect.stringMatching(/^same picture at (60 %|167 %) size/) });
    expect(reasonOf('astronaut.jpg astronaut_q45.jpg')).toMatchObject({ tier: 'near_identical', reason: expect.stringMatching(/^same picture re-encoded \(\d+ kB against \d+ kB\)$/) });
    expect(reasonOf('rocket.jpg rocket_crop.jpg')).toMatchObject({ tier: 'near_identical', reason: expect.stringMatching(/^same picture (cropped to 9\d % of it|uncropped)/) });
    expect(reasonOf('camera.jpg camera_bright.jpg')).toMatchObject({ tier: 'near_identical', reason: expect.stringMatching(/^same picture, \d+ % (brighter|darker)$|^same picture \d+ % (brighter|darker)$/) });
    expect(pairs.every((pair) => pair.tier === 'exact' || pair.tier === 'near_identical')).toBe(true);
    expect(groups.filter((group) => group.members.some((member) => member.file_name.startsWith('fmnist-')))).toEqual([]);
    expect(groups).toHaveLength(6);
  });

  it('groups a photo with all its copies, which their nearest pairs alone split in two', async () => {
    // Each copy paired with its nearest alone, these split in two: the resize, re-encode and crop, and the original with its byte copy and the brighter one.
    const motorcycle = groupsOf((await review()).groups, 'motorcycle_left');
    expect(motorcycle.map(fileNames)).toEqual([['motorcycle_left.jpg', ...family.map((file) => path.basename(file))].sort()]);
    expect(new Set(motorcycle[0].pairs.map((pair) => pair.tier))).toEqual(new Set(['exact', 'near_identical']));
  });

  it('lists look-alikes only when the similar tier is asked for, each with its similarity', async () => {
    const similar = pairsOf((await review({ tiers: 'similar' })).groups);
    expect(similar.length).toBeGreaterThan(0);
    for (const pair of similar) expect(pair).toMatchObject({ tier: 'similar', reason: `similar content, ${pair.similarity.toFixed(2)}` });
    expect(similar.some((pair) => pair.names.startsWith('fmnist-'))).toBe(true);
    const every = pairsOf((await review({ tiers: 'exact,near_identical,similar' })).groups);
    expect(new Set(every.map((pair) => pair.tier))).toEqual(new Set(['exact', 'near_identical', 'similar']));
    const preview = (await stack.request.get(`${base()}/accept_suggestions/preview`).expect(200)).body;
    expect(preview).toMatchObject({ total_groups: 6, discarded_media: 10 });
  });

  it('refuses bad tiers with 422 {detail} and changes nothing', async () => {
    const before = await databaseFingerprint(stack.deps.db);
    const detail = 'tiers must name one or more of exact, near_identical, similar, separated by commas';
    for (const tiers of ['bogus', 'exact,', '']) expect((await stack.request.get(base()).query({ tiers }).expect(422)).body).toEqual({ detail: `query.tiers: ${detail}` });
    expect((await stack.request.get(`${base()}/accept_suggestions/preview`).query({ tiers: 'near' }).expect(422)).body).toEqual({ detail: `query.tiers: ${detail}` });
    for (const tiers of [['near'], [], 'exact']) {
      expect((await stack.request.post(`${base()}/accept_suggestions`).send({ tiers }).expect(422)).body).toEqual({ detail: expect.stringMatching(/^body\.tiers(\.0)?: tiers must name/) });
    }
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });

  it('joins copies added later with add_media into the group of their original, each naming several pairs', async () => {
    const later = fs.mkdtempSync(path.join(scratch, 'later-'));
    const copies = await plantFamily('astronaut', (name) => path.join(later, name));
    const request = stack.request.post(`/api/v1/dataset/${datasetId}/add_media`);
    for (const file of copies) request.attach('files', file);
    await request.expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });
    const { groups } = await review();
    const astronaut = groupsOf(groups, 'astronaut');
    expect(astronaut.map(fileNames)).toEqual([['astronaut.jpg', 'astronaut_q45.jpg', ...copies.map((file) => path.basename(file))].sort()]);
    const pairsNamedBy = (fileName: string) => astronaut[0].pairs.filter((pair) => pair.media_id === astronaut[0].members.find((member) => member.file_name === fileName)!.media_id);
    // The batch's items are scored as a full analysis scores them: up to three pairs each.
    expect(copies.map((file) => pairsNamedBy(path.basename(file)).length)).toEqual([3, 3, 3, 3, 3]);
    expect(groups).toHaveLength(6);
  });
});
