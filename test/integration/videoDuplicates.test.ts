import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createReadyDataset } from '../support/datasets';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { exportWholeDataset } from '../support/exportArchives';
import { makeClip, photo } from '../support/media';
import { startTestStack } from '../support/testStack';

interface Group {
  members: Array<{ media_id: string; file_name: string; width: number; height: number }>;
  pairs: Array<{ media_id: string; duplicate_of: string; tier: string; reason: string }>;
  suggested_keeper: { media_id: string; reasons: string[]; deciding_fact: string };
}

/** Video copies through the real API and worker: one clip re-encoded, resized, trimmed or behind an intro is one group. */
describe('duplicate videos', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'clips-'));
  const clip = (name: string) => path.join(scratch, name);

  beforeAll(async () => {
    makeClip(photo('rocket'), 8, clip('rocket.mp4'));
    makeClip(photo('rocket'), 8, clip('rocket-intro.mp4'), { introSeconds: 3 });
    makeClip(photo('rocket'), 8, clip('rocket-trimmed.mp4'), { trimSeconds: 2.3 });
    makeClip(photo('rocket'), 8, clip('rocket-small.mp4'), { size: '480x270', crf: 30 });
    // Another clip with the same black opening second.
    makeClip(photo('chelsea'), 8, clip('chelsea.mp4'));
    fs.copyFileSync(clip('chelsea.mp4'), clip('chelsea-again.mp4'));
    // Frames a second apart, the default.
    stack = await startTestStack({ VIDEO_FRAME_INTERVAL_MS: '1000' });
    datasetId = await createReadyDataset(stack, 'clips', [...fs.readdirSync(scratch).map(clip), photo('coffee')]);
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const base = () => `/api/v1/dataset/${datasetId}/duplicates`;
  const names = (group: Group) => group.members.map((member) => member.file_name).sort();
  const nameOf = (group: Group, id: string) => group.members.find((member) => member.media_id === id)!.file_name;

  it('groups the copies of one clip with each pair\'s reason, and not clips that share a black opening', async () => {
    const { groups } = (await stack.request.get(base()).expect(200)).body as { groups: Group[] };
    expect(groups.map(names).sort()).toEqual([['chelsea-again.mp4', 'chelsea.mp4'], ['rocket-intro.mp4', 'rocket-small.mp4', 'rocket-trimmed.mp4', 'rocket.mp4']]);
    const [chelsea, rocket] = [...groups].sort((a, b) => a.members.length - b.members.length);
    expect(chelsea.pairs).toEqual([expect.objectContaining({ tier: 'exact', reason: 'same bytes' })]);
    expect(rocket.pairs.length).toBeGreaterThanOrEqual(3);
    for (const pair of rocket.pairs) expect(pair).toMatchObject({ tier: 'near_identical', reason: expect.stringMatching(/^same clip: \d+ of \d+ frames in order/) });
    const introPair = rocket.pairs.find((pair) => [nameOf(rocket, pair.media_id), nameOf(rocket, pair.duplicate_of)].sort().join() === 'rocket-intro.mp4,rocket.mp4');
    if (introPair) expect(introPair.reason).toMatch(/, 3\.0 s (later|earlier) in the other copy/);
    // The small re-encode is set aside for its pixels; the others are one encoding, a second at a time.
    expect(rocket.suggested_keeper.reasons[0]).toMatch(/^more pixels: 640×360 over 480×270 /);
    expect(nameOf(rocket, rocket.suggested_keeper.media_id)).not.toBe('rocket-small.mp4');
  });

  it('discards a video with its frames from exports, and refuses a frame as a member (422), changing nothing', async () => {
    const { groups } = (await stack.request.get(base()).expect(200)).body as { groups: Group[] };
    const rocket = groups.find((group) => group.members.length === 4)!;
    const small = rocket.members.find((member) => member.file_name === 'rocket-small.mp4')!.media_id;
    const frame = (await stack.request.get(`/api/v1/dataset/${datasetId}/media`).query({ page_size: 500 }).expect(200)).body.media.find(
      (item: { kind: string; video_id?: string | null }) => item.kind === 'VIDEO_FRAME' && item.video_id === small,
    );
    const before = await databaseFingerprint(stack.deps.db);
    expect((await stack.request.post(`${base()}/decisions`).send({ groups: [{ media_ids: [small, frame.media_id], verdict: 'not_duplicates' }] }).expect(422)).body).toEqual({
      detail: `body.groups: not images or videos of this dataset: ${frame.media_id}`,
    });
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);

    const keep = rocket.suggested_keeper.media_id;
    await stack.request.post(`${base()}/decisions`).send({ groups: [{ media_ids: rocket.members.map((member) => member.media_id), verdict: 'duplicates', keep_media_ids: [keep] }] }).expect(200);
    const { entries } = await exportWholeDataset(stack, datasetId, { export_format: 'json', file_name: 'kept' });
    const records = JSON.parse(entries.get('metadata.json')!.toString('utf8')) as Array<{ media_id: string; video_id: string | null }>;
    const chelsea = groups.find((group) => group.members.length === 2)!.members.map((member) => member.media_id);
    // Every frame exported belongs to a video kept: the discarded copies' frames went with them.
    expect(new Set(records.filter((record) => record.video_id).map((record) => record.video_id))).toEqual(new Set([keep, ...chelsea]));
    expect(records.some((record) => record.media_id === small)).toBe(false);
  });
});
