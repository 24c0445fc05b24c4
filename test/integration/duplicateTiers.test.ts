import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createReadyDataset } from '../support/datasets';
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
 * Duplicate tiers through the real API and worker: real photos with planted copies (the same bytes, a 60 % resize, a
 * quality-45 re-encode, a 5 % crop, a brighter copy) among 100 Fashion-MNIST items, many of them distinct look-alikes.
 */
describe('duplicate tiers', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tiers-'));
  const planted = (name: string) => path.join(scratch, name);
  const base = () => `/api/v1/dataset/${datasetId}/duplicates`;
  const review = async (query: Record<string, string> = {}) => (await stack.request.get(base()).query({ page_size: 200, ...query }).expect(200)).body as { groups: Group[]; total: number };
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
    const fashion = await labelledFixture(100, 0, scratch);
    stack = await startTestStack();
    datasetId = await createReadyDataset(stack, 'tiers', [
      ...PHOTO_NAMES.map(photo),
      ...['chelsea_copy.jpg', 'coffee_small.jpg', 'astronaut_q45.jpg', 'rocket_crop.jpg', 'camera_bright.jpg'].map(planted),
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
    expect(groups).toHaveLength(5);
  });

  it('lists look-alikes only when the similar tier is asked for, each with its similarity', async () => {
    const similar = pairsOf((await review({ tiers: 'similar' })).groups);
    expect(similar.length).toBeGreaterThan(0);
    for (const pair of similar) expect(pair).toMatchObject({ tier: 'similar', reason: `similar content, ${pair.similarity.toFixed(2)}` });
    expect(similar.some((pair) => pair.names.startsWith('fmnist-'))).toBe(true);
    const every = pairsOf((await review({ tiers: 'exact,near_identical,similar' })).groups);
    expect(new Set(every.map((pair) => pair.tier))).toEqual(new Set(['exact', 'near_identical', 'similar']));
    const preview = (await stack.request.get(`${base()}/accept_suggestions/preview`).expect(200)).body;
    expect(preview).toMatchObject({ total_groups: 5, discarded_media: 5 });
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
});
