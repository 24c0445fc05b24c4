import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { createReadyDataset, waitForDatasetStatus, waitForTask } from '../support/datasets';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { eventually, photo, PHOTO_NAMES } from '../support/media';
import { datasetSharedWithViewer } from '../support/sessions';
import { startTestApi, startTestStack } from '../support/testStack';
import { unusedVersionsDropped } from '../support/versions';
import { readZip } from '../support/zip';

interface Member {
  media_id: string;
  file_name: string;
  width: number;
  height: number;
  file_size: number;
  issues: string[];
  role: string | null;
  media_thumb_uri: string;
}
interface Group {
  group_id: string;
  state: string;
  members: Member[];
  suggested_keeper: { media_id: string; reasons: string[]; deciding_fact: string };
  decision: { decision_id: string; verdict: string } | null;
}
interface Review {
  groups: Group[];
  total: number;
  counts: { open: number; changed: number; decided: number };
}

/** Duplicate review through the real API and worker: groups, decisions that stick, accept-all, exports without discarded copies. */
describe('duplicate review', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dups-'));
  const variant = (name: string, width: number) => path.join(scratch, `${name}_${width}.jpg`);

  beforeAll(async () => {
    for (const [name, width] of [['chelsea', 240], ['camera', 300], ['chelsea', 300]] as const) {
      await sharp(photo(name)).resize(width).jpeg({ quality: 70 }).toFile(variant(name, width));
    }
    stack = await startTestStack();
    datasetId = await createReadyDataset(stack, 'pets', [...['chelsea', 'coffee', 'astronaut', 'rocket', 'camera'].map(photo), variant('chelsea', 240), variant('camera', 300)]);
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const base = () => `/api/v1/dataset/${datasetId}/duplicates`;
  const review = async (query: Record<string, string | number> = {}) => (await stack.request.get(base()).query(query).expect(200)).body as Review;
  const names = (group: Group) => group.members.map((member) => member.file_name).sort();
  const groupOf = (groups: Group[], fileName: string) => groups.find((group) => group.members.some((member) => member.file_name === fileName))!;
  const idOf = (group: Group, fileName: string) => group.members.find((member) => member.file_name === fileName)!.media_id;
  const exportedNames = async (query: Record<string, string>) => {
    const { id } = (await stack.request.get(`/api/v1/dataset/${datasetId}/export_context_async`).query({ export_format: 'json', ...query }).expect(200)).body;
    const status = await eventually(
      async () => (await stack.request.get(`/api/v1/dataset/${datasetId}/export_status`).query({ export_task_id: id }).expect(200)).body,
      (body) => body.status === 'COMPLETED' || body.status === 'FAILED',
    );
    const zip = (await stack.request.get(new URL(status.download_uri).pathname + new URL(status.download_uri).search).buffer(true).parse((response, done) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done(null, Buffer.concat(chunks)));
    })).body as Buffer;
    const records = JSON.parse((await readZip(zip)).get('metadata.json')!.toString('utf8')) as Array<{ image_filename?: string; file_name?: string }>;
    return records.map((record) => record.file_name ?? record.image_filename).sort();
  };

  it('groups the copies, shows each member\'s resolution, size and issues, and suggests the largest copy with its reasons', async () => {
    const { groups, total, counts } = await review();
    expect({ total, counts }).toEqual({ total: 2, counts: { open: 2, changed: 0, decided: 0 } });
    expect(groups.map(names).sort()).toEqual([['camera.jpg', 'camera_300.jpg'], ['chelsea.jpg', 'chelsea_240.jpg']]);
    for (const group of groups) {
      const original = group.members.find((member) => !member.file_name.includes('_'))!;
      const copy = group.members.find((member) => member.file_name.includes('_'))!;
      expect(group).toMatchObject({ state: 'open', decision: null });
      expect(original.width * original.height).toBeGreaterThan(copy.width * copy.height);
      expect(original.file_size).toBeGreaterThan(0);
      expect(group.suggested_keeper.media_id).toBe(original.media_id);
      expect(group.suggested_keeper).toMatchObject({ deciding_fact: 'pixels', reasons: [expect.stringMatching(new RegExp(`^more pixels: ${original.width}×${original.height} over ${copy.width}×${copy.height} `))] });
      expect(original.media_thumb_uri.startsWith(`${stack.deps.config.publicUrl}/api/v1/media/${original.media_id}/thumbnail?`)).toBe(true);
    }
  });

  it('records a decision that keeps the chosen copy untouched, leaves the discarded one out of exports, and can be undone', async () => {
    const chelsea = groupOf((await review()).groups, 'chelsea.jpg');
    const decided = (await stack.request.post(`${base()}/decisions`).send({
      groups: [{ media_ids: chelsea.members.map((member) => member.media_id), verdict: 'duplicates', keep_media_ids: [idOf(chelsea, 'chelsea.jpg')] }],
    }).expect(200)).body;
    const decisionId = decided.decisions[0].decision_id;
    const after = await review({ state: 'all' });
    expect(after.counts).toEqual({ open: 1, changed: 0, decided: 1 });
    const decidedGroup = groupOf(after.groups, 'chelsea.jpg');
    expect(decidedGroup).toMatchObject({ group_id: decisionId, state: 'decided', decision: { decision_id: decisionId, verdict: 'duplicates' } });
    expect(decidedGroup.members.map((member) => [member.file_name, member.role]).sort()).toEqual([['chelsea.jpg', 'keep'], ['chelsea_240.jpg', 'discard']]);
    expect((await review()).groups.map(names)).toEqual([['camera.jpg', 'camera_300.jpg']]);
    // The keeper carries no tag: the decision is the review's own record.
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/tags`).expect(200)).body.tags).toEqual([]);

    const exported = await exportedNames({ file_name: 'without' });
    expect(exported).toContain('chelsea.jpg');
    expect(exported).not.toContain('chelsea_240.jpg');
    expect(await exportedNames({ file_name: 'with', include_discarded_duplicates: 'true' })).toContain('chelsea_240.jpg');

    await stack.request.delete(`${base()}/decisions/${decisionId}`).expect(200);
    expect((await review()).counts).toEqual({ open: 2, changed: 0, decided: 0 });
    expect((await stack.request.delete(`${base()}/decisions/${decisionId}`).expect(404)).body).toEqual({ detail: 'Decision not found' });
    await stack.request.post(`${base()}/decisions`).send({
      groups: [{ media_ids: chelsea.members.map((member) => member.media_id), verdict: 'duplicates', keep_media_ids: [idOf(chelsea, 'chelsea.jpg')] }],
    }).expect(200);
  });

  it('keeps decisions through add_media, reindex and a snapshot restore; a new copy reopens its group with the earlier keeper suggested', async () => {
    const snapshot = (await stack.request.post(`/api/v1/dataset/${datasetId}/snapshot`).send({ name: 'decided' }).expect(200)).body;
    await stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('files', variant('chelsea', 300)).expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });

    const changed = groupOf((await review()).groups, 'chelsea_300.jpg');
    expect(changed.state).toBe('changed');
    expect(changed.members.map((member) => [member.file_name, member.role]).sort()).toEqual([['chelsea.jpg', 'keep'], ['chelsea_240.jpg', 'discard'], ['chelsea_300.jpg', null]]);
    expect(changed.suggested_keeper).toEqual({ media_id: idOf(changed, 'chelsea.jpg'), reasons: ['kept when this group was decided before'], deciding_fact: 'kept_before' });

    await stack.request.post(`/api/v1/dataset/${datasetId}/reindex`).expect(202);
    await waitForDatasetStatus(stack, datasetId, ['READY']);
    expect(groupOf((await review()).groups, 'chelsea_300.jpg')).toMatchObject({ state: 'changed', suggested_keeper: changed.suggested_keeper });

    expect((await stack.request.post(`${base()}/accept_suggestions`).send({}).expect(200)).body).toEqual({ decided_groups: 2, discarded_media: 3 });
    const all = await review({ state: 'all' });
    expect(all.counts).toEqual({ open: 0, changed: 0, decided: 2 });
    expect(groupOf(all.groups, 'chelsea_300.jpg').members.map((member) => [member.file_name, member.role]).sort()).toEqual([
      ['chelsea.jpg', 'keep'], ['chelsea_240.jpg', 'discard'], ['chelsea_300.jpg', 'discard'],
    ]);
    expect(groupOf(all.groups, 'camera.jpg').members.map((member) => [member.file_name, member.role]).sort()).toEqual([['camera.jpg', 'keep'], ['camera_300.jpg', 'discard']]);

    await stack.request.post(`/api/v1/dataset/${datasetId}/snapshot/${snapshot.snapshot_id}/restore`).expect(202);
    await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED']);
    await waitForDatasetStatus(stack, datasetId, ['READY']);
    await unusedVersionsDropped(stack.deps.db, datasetId);
    const restored = await review({ state: 'all' });
    expect(restored.counts).toEqual({ open: 1, changed: 0, decided: 1 });
    expect(groupOf(restored.groups, 'chelsea.jpg').members.map((member) => [member.file_name, member.role]).sort()).toEqual([['chelsea.jpg', 'keep'], ['chelsea_240.jpg', 'discard']]);
  });

  it('refuses bad input with 422 {detail} and changes nothing', async () => {
    const group = groupOf((await review({ state: 'all' })).groups, 'camera.jpg');
    const ids = group.members.map((member) => member.media_id);
    const before = await databaseFingerprint(stack.deps.db);
    const refusals: Array<[Record<string, string>, string]> = [
      [{ similarity: '0.5' }, 'query.similarity: similarity must be a number from 0.9 to 1'],
      [{ similarity: 'x' }, 'query.similarity: similarity must be a number from 0.9 to 1'],
      [{ state: 'maybe' }, 'query.state: state must be open, decided or all'],
      [{ page_size: '500' }, 'query.page_size: page_size must be a whole number 1-200'],
    ];
    for (const [query, detail] of refusals) expect((await stack.request.get(base()).query(query).expect(422)).body).toEqual({ detail });
    const bodies: Array<[object, string]> = [
      [{}, 'body.groups: groups must be an array of decisions'],
      [{ groups: [] }, 'body.groups: groups must not be empty'],
      [{ groups: [{ media_ids: [ids[0]], verdict: 'duplicates', keep_media_ids: [ids[0]] }] }, 'body.groups.0.media_ids: media_ids must name at least 2 images'],
      [{ groups: [{ media_ids: ids, verdict: 'maybe' }] }, 'body.groups.0.verdict: verdict must be duplicates or not_duplicates'],
      [{ groups: [{ media_ids: ids, verdict: 'duplicates' }] }, 'body.groups.0.keep_media_ids: name the copies to keep (at least one)'],
      [{ groups: [{ media_ids: ids, verdict: 'duplicates', keep_media_ids: ids }] }, 'body.groups.0.keep_media_ids: keeping every member is not_duplicates'],
      [{ groups: [{ media_ids: ids, verdict: 'duplicates', keep_media_ids: [randomUUID()] }] }, 'body.groups.0.keep_media_ids: every kept copy must be one of media_ids'],
      [{ groups: [{ media_ids: ids, verdict: 'not_duplicates', keep_media_ids: [ids[0]] }] }, 'body.groups.0.keep_media_ids: not_duplicates keeps every member; leave keep_media_ids out'],
      [{ groups: [{ media_ids: [ids[0], ids[0]], verdict: 'not_duplicates' }] }, 'body.groups.0.media_ids: a media id is listed twice'],
      [{ groups: [{ media_ids: ids, verdict: 'not_duplicates' }, { media_ids: ids, verdict: 'not_duplicates' }] }, `body.groups.1.media_ids: ${ids[0]} is in two groups of this request`],
    ];
    for (const [body, detail] of bodies) expect((await stack.request.post(`${base()}/decisions`).send(body).expect(422)).body).toEqual({ detail });
    const stranger = randomUUID();
    expect((await stack.request.post(`${base()}/decisions`).send({ groups: [{ media_ids: [ids[0], stranger], verdict: 'not_duplicates' }] }).expect(422)).body).toEqual({
      detail: `body.groups: not images of this dataset: ${stranger}`,
    });
    expect((await stack.request.post(`${base()}/accept_suggestions`).send({ similarity: 2 }).expect(422)).body).toEqual({ detail: 'body.similarity: similarity must be a number from 0.9 to 1' });
    await stack.request.delete(`${base()}/decisions/not-a-uuid`).expect(422);
    await stack.request.get(`/api/v1/dataset/${randomUUID()}/duplicates`).expect(404);
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });
});

/** Copies added later with add_media: the keeper is decided from the group's facts, not from flags stored at creation. */
describe('the keeper after add_media', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'keeper-'));
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('suggests the original over a quality-60 re-encode, a 60 % resize and a 5 % crop, though the originals carry a stale outliers flag', async () => {
    stack = await startTestStack();
    const datasetId = await createReadyDataset(stack, 'photos', PHOTO_NAMES.map(photo));
    const derivative = (name: string) => path.join(scratch, name);
    await sharp(photo('chelsea')).jpeg({ quality: 60 }).toFile(derivative('chelsea_q60.jpg'));
    const coffee = await sharp(photo('coffee')).metadata();
    await sharp(photo('coffee')).resize(Math.round(coffee.width! * 0.6)).jpeg({ quality: 90 }).toFile(derivative('coffee_small.jpg'));
    const small = await sharp(derivative('coffee_small.jpg')).metadata();
    const astronaut = await sharp(photo('astronaut')).metadata();
    const [width, height] = [Math.round(astronaut.width! * 0.95), Math.round(astronaut.height! * 0.95)];
    await sharp(photo('astronaut')).extract({ left: 0, top: 0, width, height }).jpeg({ quality: 95 }).toFile(derivative('astronaut_crop.jpg'));

    // As in the field: the originals were flagged outliers when the dataset was indexed, and the copies arrive without that flag.
    const { db } = stack.deps;
    const version = (await db('datasets').where({ id: datasetId }).first('head_version_id')).head_version_id as string;
    const originals = await db('media').where({ version_id: version }).whereIn('file_name', ['chelsea.jpg', 'coffee.jpg', 'astronaut.jpg']).select('id');
    await db('media_issues')
      .insert(originals.map((row: { id: string }) => ({ version_id: version, media_id: row.id, issue_type: 'outliers', confidence: 0.9, details: null })))
      .onConflict(['version_id', 'media_id', 'issue_type'])
      .ignore();

    await stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('files', derivative('chelsea_q60.jpg')).attach('files', derivative('coffee_small.jpg')).attach('files', derivative('astronaut_crop.jpg')).expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });

    const { groups } = (await stack.request.get(`/api/v1/dataset/${datasetId}/duplicates`).expect(200)).body as Review;
    const suggestion = (fileName: string) => {
      const group = groups.find((candidate) => candidate.members.some((member) => member.file_name === fileName))!;
      const keeper = group.members.find((member) => member.media_id === group.suggested_keeper.media_id)!;
      return { members: group.members.map((member) => member.file_name).sort(), keeper: keeper.file_name, keeperIssues: keeper.issues, ...group.suggested_keeper };
    };
    expect(suggestion('chelsea_q60.jpg')).toMatchObject({
      members: ['chelsea.jpg', 'chelsea_q60.jpg'], keeper: 'chelsea.jpg', keeperIssues: ['outliers'], deciding_fact: 'bits_per_pixel',
      reasons: [expect.stringMatching(/^more bits per pixel: .* \(a re-encode at lower quality\)$/)],
    });
    expect(suggestion('coffee_small.jpg')).toMatchObject({
      members: ['coffee.jpg', 'coffee_small.jpg'], keeper: 'coffee.jpg', deciding_fact: 'pixels',
      reasons: [`more pixels: ${coffee.width}×${coffee.height} over ${small.width}×${small.height} (a smaller copy: resized, or cropped evenly)`],
    });
    expect(suggestion('astronaut_crop.jpg')).toMatchObject({
      members: ['astronaut.jpg', 'astronaut_crop.jpg'], keeper: 'astronaut.jpg', deciding_fact: 'pixels',
      reasons: [`more pixels: ${astronaut.width}×${astronaut.height} over ${width}×${height} (a smaller copy: resized, or cropped evenly)`],
    });

    // Accept all now discards the copies, never the originals.
    await stack.request.post(`/api/v1/dataset/${datasetId}/duplicates/accept_suggestions`).send({}).expect(200);
    const roles = await db('duplicate_decisions as d').join('media as m', (join) => join.on('m.version_id', 'd.version_id').andOn('m.id', 'd.media_id'))
      .where('d.version_id', version).select('m.file_name', 'd.role').orderBy('m.file_name');
    expect(roles.filter((row: { role: string }) => row.role === 'discard').map((row: { file_name: string }) => row.file_name)).toEqual(['astronaut_crop.jpg', 'chelsea_q60.jpg', 'coffee_small.jpg']);
  }, 240_000);
});

describe('duplicate review access', () => {
  it('lets a viewer read the groups and refuses them every decision (403), changing nothing', async () => {
    const api = await startTestApi({ DISABLE_AUTH: 'false' });
    try {
      const { db } = api.deps;
      const { datasetId, viewerCookie: cookie } = await datasetSharedWithViewer(api);
      const base = `/api/v1/dataset/${datasetId}/duplicates`;
      expect((await api.request.get(base).set('Cookie', cookie).expect(200)).body).toEqual({ groups: [], total: 0, counts: { open: 0, changed: 0, decided: 0 } });
      const before = await databaseFingerprint(db);
      const refused = { detail: 'This operation needs editor access to the dataset; you have viewer' };
      const body = { groups: [{ media_ids: [randomUUID(), randomUUID()], verdict: 'not_duplicates' }] };
      expect((await api.request.post(`${base}/decisions`).set('Cookie', cookie).send(body).expect(403)).body).toEqual(refused);
      expect((await api.request.post(`${base}/accept_suggestions`).set('Cookie', cookie).send({}).expect(403)).body).toEqual(refused);
      expect((await api.request.delete(`${base}/decisions/${randomUUID()}`).set('Cookie', cookie).expect(403)).body).toEqual(refused);
      await api.request.get(base).expect(401);
      expect(await databaseFingerprint(db)).toEqual(before);
    } finally {
      await api.close();
    }
  });
});
