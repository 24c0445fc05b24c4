import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createReadyDataset } from '../support/datasets';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { exportWholeDataset } from '../support/exportArchives';
import { eventually, makeClip, makeStillClip, photo } from '../support/media';
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
    // A still shot between black screens: its frames repeat one picture, and its closing black its opening.
    makeStillClip(photo('astronaut'), 5, clip('still.mp4'));
    // A long still shot and a coarser encoding of it: each frame's nearest are its own video's, which keeps only 3 of them.
    makeStillClip(photo('camera'), 16, clip('long-still.mp4'));
    makeStillClip(photo('camera'), 16, clip('long-still-coarse.mp4'), 38);
    // Frames a second apart, the default.
    stack = await startTestStack({ VIDEO_FRAME_INTERVAL_MS: '1000' });
    datasetId = await createReadyDataset(stack, 'clips', [...fs.readdirSync(scratch).map(clip), photo('coffee')]);
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const base = () => `/api/v1/dataset/${datasetId}/duplicates`;
  const headVersion = async () => (await stack.deps.db('datasets').where({ id: datasetId }).first('head_version_id')).head_version_id as string;
  const names = (group: Group) => group.members.map((member) => member.file_name).sort();
  const nameOf = (group: Group, id: string) => group.members.find((member) => member.media_id === id)!.file_name;

  it('groups the copies of one clip with each pair\'s reason, and not clips that share a black opening', async () => {
    const { groups } = (await stack.request.get(base()).expect(200)).body as { groups: Group[] };
    expect(groups.map(names).sort()).toEqual([
      ['chelsea-again.mp4', 'chelsea.mp4'],
      ['long-still-coarse.mp4', 'long-still.mp4'],
      ['rocket-intro.mp4', 'rocket-small.mp4', 'rocket-trimmed.mp4', 'rocket.mp4'],
    ]);
    const [chelsea, rocket] = [groups.find((group) => names(group)[0] === 'chelsea-again.mp4')!, groups.find((group) => group.members.length === 4)!];
    expect(chelsea.pairs).toEqual([expect.objectContaining({ tier: 'exact', reason: 'same bytes' })]);
    expect(rocket.pairs.length).toBeGreaterThanOrEqual(3);
    for (const pair of rocket.pairs) expect(pair).toMatchObject({ tier: 'near_identical', reason: expect.stringMatching(/^same clip: \d+ of \d+ frames in order/) });
    const introPair = rocket.pairs.find((pair) => [nameOf(rocket, pair.media_id), nameOf(rocket, pair.duplicate_of)].sort().join() === 'rocket-intro.mp4,rocket.mp4');
    if (introPair) expect(introPair.reason).toMatch(/, 3\.0 s (later|earlier) in the other copy/);
    // The small re-encode is set aside for its pixels; the others are one encoding, a second at a time.
    expect(rocket.suggested_keeper.reasons[0]).toMatch(/^more pixels: 640×360 over 480×270 /);
    expect(nameOf(rocket, rocket.suggested_keeper.media_id)).not.toBe('rocket-small.mp4');
  });

  it('flags copies of one clip in different splits as leakage in the label check', async () => {
    const finished = (taskId: string) =>
      eventually(async () => (await stack.request.get(`/api/v1/tasks/${taskId}`).expect(200)).body, (task) => ['COMPLETED', 'FAILED'].includes(task.status), 120_000);
    const split: Record<string, string> = { 'rocket.mp4': 'train', 'rocket-intro.mp4': 'test', 'rocket-trimmed.mp4': 'train', 'rocket-small.mp4': 'train', 'chelsea.mp4': 'test', 'chelsea-again.mp4': 'test', 'coffee.jpg': 'train' };
    fs.writeFileSync(clip('labels.json'), JSON.stringify(Object.entries(split).map(([file_name, fold]) => ({ file_name, category: file_name.startsWith('coffee') ? 'cup' : 'scene', fold }))));
    const imported = await stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).attach('file', clip('labels.json')).expect(202);
    expect(await finished(imported.body.task_id)).toMatchObject({ status: 'COMPLETED' });
    const check = await stack.request.put(`/api/v1/dataset/${datasetId}/label_fields`).send({ label_field: 'category', split_field: 'fold' }).expect(202);
    expect(await finished(check.body.task_id)).toMatchObject({ status: 'COMPLETED' });

    const version = (await stack.deps.db('datasets').where({ id: datasetId }).first('head_version_id')).head_version_id;
    const leaks: Array<{ file_name: string; details: { split: string; duplicate_split: string; duplicate_of: string } }> = await stack.deps.db('media_issues as i')
      .join('media as m', (join) => join.on('m.version_id', 'i.version_id').andOn('m.id', 'i.media_id'))
      .where({ 'i.version_id': version, 'i.issue_type': 'leakage' })
      .select('m.file_name', 'i.details');
    // The intro copy sits in test, every other copy of its clip in train; the two chelsea copies share a split.
    expect(leaks.map((leak) => leak.file_name)).toContain('rocket-intro.mp4');
    expect(leaks.length).toBeGreaterThanOrEqual(2);
    for (const leak of leaks) {
      expect(leak.file_name).toMatch(/^rocket/);
      expect(leak.details.split).not.toBe(leak.details.duplicate_split);
    }
    const report = (await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    expect(report.leakage.pairs).toBeGreaterThanOrEqual(1);
    expect(report.leakage.by_splits).toEqual([{ splits: ['test', 'train'], pairs: report.leakage.pairs }]);
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
    const videos: string[] = await stack.deps.db('media').where({ version_id: await headVersion(), kind: 'VIDEO' }).pluck('id');
    const kept = videos.filter((id) => id === keep || !rocket.members.some((member) => member.media_id === id));
    // Every frame exported belongs to a video kept: the discarded copies' frames went with them.
    expect(new Set(records.filter((record) => record.video_id).map((record) => record.video_id))).toEqual(new Set(kept));
    expect(records.some((record) => record.media_id === small)).toBe(false);
  });

  it('shows a still shot once: its repeated frames preview last and are exported only when asked', async () => {
    const frames: Array<{ id: string; frame_index: number; repeat_of_frame: number | null }> = await stack.deps.db('media as f')
      .join('media as v', (join) => join.on('v.version_id', 'f.version_id').andOn('v.id', 'f.parent_id'))
      .where({ 'f.version_id': await headVersion(), 'v.file_name': 'still.mp4' })
      .orderBy('f.frame_index')
      .select('f.id', 'f.frame_index', 'f.repeat_of_frame');
    // Black, the picture, four more seconds of it, black again.
    expect(frames.map((frame) => frame.repeat_of_frame)).toEqual([null, null, 1, 1, 1, 1, 0]);
    // Every video's repeats (the long still shots have theirs too).
    const repeated = new Set<string>(await stack.deps.db('media').where({ version_id: await headVersion() }).whereNotNull('repeat_of_frame').pluck('id'));
    expect(repeated.size).toBeGreaterThan(5);

    for (const threshold of [0, 2, 4]) {
      const { clusters } = (await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', threshold }).expect(200)).body as {
        clusters: Array<{ cluster_id: string; previews: Array<{ media_id: string }> }>;
      };
      // No distinct item after a repeat: the repeats close each list.
      const repeatsLast = (ids: string[]) => {
        const order = ids.map((id) => repeated.has(id));
        expect(order).toEqual([...order].sort((a, b) => Number(a) - Number(b)));
      };
      for (const cluster of clusters) repeatsLast(cluster.previews.map((preview) => preview.media_id));
      const shot = clusters.find((cluster) => cluster.previews.some((preview) => preview.media_id === frames[1].id))!;
      const members = (await stack.request.get(`/api/v1/dataset/${datasetId}/clusters/${shot.cluster_id}/media`).expect(200)).body.media as Array<{ media_id: string }>;
      expect(members.map((member) => member.media_id)).toContain(frames[1].id);
      repeatsLast(members.map((member) => member.media_id));
    }

    const still = (await stack.deps.db('media').where({ version_id: await headVersion(), file_name: 'still.mp4' }).first('id')).id as string;
    const exportedFrames = async (query: Record<string, string>) => {
      const { entries } = await exportWholeDataset(stack, datasetId, { export_format: 'json', ...query });
      const records = JSON.parse(entries.get('metadata.json')!.toString('utf8')) as Array<{ video_id: string | null; frame_index: number }>;
      return records.filter((record) => record.video_id === still).map((record) => record.frame_index).sort();
    };
    expect(await exportedFrames({ file_name: 'distinct' })).toEqual([0, 1]);
    expect(await exportedFrames({ file_name: 'every', include_repeated_frames: 'true' })).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});
