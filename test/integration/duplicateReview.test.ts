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
  member_count: number;
  suggested_keeper: { media_id: string; reasons: string[]; deciding_fact: string };
  decision: { decision_id: string; verdict: string; action_id: string | null } | null;
}
interface Review {
  groups: Group[];
  total: number;
  counts: { open: number; changed: number; decided: number };
}

type Stack = Awaited<ReturnType<typeof startTestStack>>;
interface ExportRecord {
  image_filename?: string;
  file_name?: string;
  labels: Array<{ label: string }>;
  tags: Array<{ name: string }>;
  custom_metadata: Record<string, unknown> | null;
}

/** The records of a JSON export of the dataset's head version. */
async function exportedRecords(stack: Stack, datasetId: string, query: Record<string, string>): Promise<ExportRecord[]> {
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
  return JSON.parse((await readZip(zip)).get('metadata.json')!.toString('utf8')) as ExportRecord[];
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
  const exportedNames = async (query: Record<string, string>) =>
    (await exportedRecords(stack, datasetId, query)).map((record) => record.file_name ?? record.image_filename).sort();

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

    expect((await stack.request.post(`${base()}/accept_suggestions`).send({}).expect(200)).body).toMatchObject({ decided_groups: 2, discarded_media: 3 });
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
      [{ groups: [{ media_ids: [ids[0]], verdict: 'duplicates', keep_media_ids: [ids[0]] }] }, 'body.groups.0.media_ids: media_ids must name at least 2 images or videos'],
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
      detail: `body.groups: not images or videos of this dataset: ${stranger}`,
    });
    expect((await stack.request.post(`${base()}/accept_suggestions`).send({ similarity: 2 }).expect(422)).body).toEqual({ detail: 'body.similarity: similarity must be a number from 0.9 to 1' });
    await stack.request.delete(`${base()}/decisions/not-a-uuid`).expect(422);
    await stack.request.get(`/api/v1/dataset/${randomUUID()}/duplicates`).expect(404);
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });
});

/** Copies added later with add_media: the keeper from the group's facts, the merge on resolve, Accept all with its preview. */
describe('the keeper after add_media, merges and Accept all', () => {
  let stack: Stack;
  let datasetId: string;
  let version: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'keeper-'));
  const derivative = (name: string) => path.join(scratch, name);
  const base = () => `/api/v1/dataset/${datasetId}/duplicates`;
  const review = async (query: Record<string, string | number> = {}) => (await stack.request.get(base()).query(query).expect(200)).body as Review;
  const groupOf = (groups: Group[], fileName: string) => groups.find((group) => group.members.some((member) => member.file_name === fileName))!;
  const idOf = async (fileName: string) => (await stack.deps.db('media').where({ version_id: version, file_name: fileName }).first('id')).id as string;
  const roles = async () =>
    (await stack.deps.db('duplicate_decisions as d').join('media as m', (join) => join.on('m.version_id', 'd.version_id').andOn('m.id', 'd.media_id'))
      .where('d.version_id', version).select('m.file_name', 'd.role').orderBy('m.file_name')).map((row: { file_name: string; role: string }) => `${row.file_name}:${row.role}`);

  beforeAll(async () => {
    stack = await startTestStack();
    datasetId = await createReadyDataset(stack, 'photos', PHOTO_NAMES.map(photo));
    version = (await stack.deps.db('datasets').where({ id: datasetId }).first('head_version_id')).head_version_id;
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('suggests the original over a quality-60 re-encode, a 60 % resize and a 5 % crop, though the originals carry a stale outliers flag', async () => {
    await sharp(photo('chelsea')).jpeg({ quality: 60 }).toFile(derivative('chelsea_q60.jpg'));
    const coffee = await sharp(photo('coffee')).metadata();
    await sharp(photo('coffee')).resize(Math.round(coffee.width! * 0.6)).jpeg({ quality: 90 }).toFile(derivative('coffee_small.jpg'));
    const small = await sharp(derivative('coffee_small.jpg')).metadata();
    const astronaut = await sharp(photo('astronaut')).metadata();
    const [width, height] = [Math.round(astronaut.width! * 0.95), Math.round(astronaut.height! * 0.95)];
    await sharp(photo('astronaut')).extract({ left: 0, top: 0, width, height }).jpeg({ quality: 95 }).toFile(derivative('astronaut_crop.jpg'));

    // As in the field: the originals were flagged outliers when the dataset was indexed, and the copies arrive without that flag.
    const originals = await stack.deps.db('media').where({ version_id: version }).whereIn('file_name', ['chelsea.jpg', 'coffee.jpg', 'astronaut.jpg']).select('id');
    await stack.deps.db('media_issues')
      .insert(originals.map((row: { id: string }) => ({ version_id: version, media_id: row.id, issue_type: 'outliers', confidence: 0.9, details: null })))
      .onConflict(['version_id', 'media_id', 'issue_type'])
      .ignore();

    await stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('files', derivative('chelsea_q60.jpg')).attach('files', derivative('coffee_small.jpg')).attach('files', derivative('astronaut_crop.jpg')).expect(202);
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });

    const { groups } = await review();
    const suggestion = (fileName: string) => {
      const group = groupOf(groups, fileName);
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
  }, 120_000);

  it('merges the discarded copy\'s labels, tags and metadata into the keeper, lists a conflicting class, exports the merged facts, and an undo takes them back', async () => {
    const { db } = stack.deps;
    // Exports read a READY dataset: index the batch first.
    await stack.request.post(`/api/v1/dataset/${datasetId}/reindex`).expect(202);
    await waitForDatasetStatus(stack, datasetId, ['READY']);
    version = (await db('datasets').where({ id: datasetId }).first('head_version_id')).head_version_id;
    const [original, copy] = [await idOf('coffee.jpg'), await idOf('coffee_small.jpg')];
    await db('dataset_versions').where({ id: version }).update({ label_quality: db.raw(`coalesce(label_quality, '{}'::jsonb) || '{"label_field": "class"}'::jsonb`) });
    await db('media').where({ version_id: version, id: original }).update({ custom_metadata: JSON.stringify({ class: 'mug', shot: 'studio' }) });
    await db('media').where({ version_id: version, id: copy }).update({ custom_metadata: JSON.stringify({ class: 'cup', photographer: 'ann', shot: 'studio' }) });
    await db('media_labels').insert({ version_id: version, media_id: copy, label: 'espresso', source: 'model', confidence: 0.8 });
    const tag = (await stack.request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: 'favourite' }).expect(201)).body;
    await db('media_tags').insert({ version_id: version, media_id: copy, tag_id: tag.id });

    const decided = (await stack.request.post(`${base()}/decisions`).send({ groups: [{ media_ids: [original, copy], verdict: 'duplicates', keep_media_ids: [original] }] }).expect(200)).body;
    expect(decided.decisions).toEqual([{
      decision_id: expect.any(String),
      media_ids: [original, copy],
      merged: { labels: 1, tags: 1, metadata_fields: 1 },
      conflicts: [{ keeper_media_id: original, field: 'class', kind: 'class', kept: 'mug', discarded: [{ media_id: copy, value: 'cup' }] }],
    }]);
    const decidedGroup = groupOf((await review({ state: 'decided' })).groups, 'coffee.jpg');
    expect(decidedGroup.decision).toMatchObject({ verdict: 'duplicates', action_id: null, conflicts: decided.decisions[0].conflicts });

    const records = await exportedRecords(stack, datasetId, { file_name: 'merged' });
    expect(records.map((record) => record.file_name ?? record.image_filename)).not.toContain('coffee_small.jpg');
    const keeper = records.find((record) => (record.file_name ?? record.image_filename) === 'coffee.jpg')!;
    expect({ labels: keeper.labels.map((label) => label.label), tags: keeper.tags.map((entry) => entry.name), metadata: keeper.custom_metadata }).toEqual({
      labels: ['espresso'], tags: ['favourite'], metadata: { class: 'mug', photographer: 'ann', shot: 'studio' },
    });

    await stack.request.delete(`${base()}/decisions/${decided.decisions[0].decision_id}`).expect(200);
    expect(await db('media_labels').where({ version_id: version, media_id: original }).pluck('label')).toEqual([]);
    expect(await db('media_tags').where({ version_id: version, media_id: original }).pluck('tag_id')).toEqual([]);
    expect((await db('media').where({ version_id: version, id: original }).first('custom_metadata')).custom_metadata).toEqual({ class: 'mug', shot: 'studio' });
  }, 120_000);

  it('previews Accept all a page at a time, refuses it when the groups changed since, and undoes the whole action at once', async () => {
    const preview = async (query: Record<string, string | number> = {}) => (await stack.request.get(`${base()}/accept_suggestions/preview`).query(query).expect(200)).body;
    const first = await preview({ page_size: 2 });
    expect(first).toMatchObject({ total_groups: 3, discarded_media: 3, preview_token: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(first.groups).toHaveLength(2);
    const all = [...first.groups, ...(await preview({ page_size: 2, page_number: 1 })).groups];
    expect(all.map((group: { keep: Member[]; discard: Member[] }) => [group.keep.map((member) => member.file_name), group.discard.map((member) => member.file_name)]).sort()).toEqual([
      [['astronaut.jpg'], ['astronaut_crop.jpg']], [['chelsea.jpg'], ['chelsea_q60.jpg']], [['coffee.jpg'], ['coffee_small.jpg']],
    ]);
    expect(all[0].discard[0].media_thumb_uri).toContain('/thumbnail?');
    expect(all.every((group: { discard_count: number; keeper_reasons: string[] }) => group.discard_count === 1 && group.keeper_reasons.length > 0)).toBe(true);

    // The groups change after the preview: one is decided by hand. The previewed Accept all is refused and decides nothing.
    const chelsea = [await idOf('chelsea.jpg'), await idOf('chelsea_q60.jpg')];
    const manual = (await stack.request.post(`${base()}/decisions`).send({ groups: [{ media_ids: chelsea, verdict: 'not_duplicates' }] }).expect(200)).body.decisions[0].decision_id;
    const before = await databaseFingerprint(stack.deps.db);
    expect((await stack.request.post(`${base()}/accept_suggestions`).send({ preview_token: first.preview_token }).expect(409)).body).toEqual({
      detail: 'The duplicate groups changed since the preview: it would now decide 2 groups and discard 2 copies; preview again',
    });
    expect((await stack.request.post(`${base()}/accept_suggestions`).send({ expected_discarded_media: 3 }).expect(409)).body).toEqual({
      detail: 'Accept all was expected to discard 3 copies, but it would now decide 2 groups and discard 2 copies; preview again',
    });
    expect((await stack.request.post(`${base()}/accept_suggestions`).send({ max_discarded_media: 1 }).expect(409)).body).toEqual({
      detail: 'Accept all would discard 2 copies, more than max_discarded_media (1)',
    });
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);

    const again = await preview();
    const accepted = (await stack.request.post(`${base()}/accept_suggestions`).send({ preview_token: again.preview_token, expected_discarded_media: 2 }).expect(200)).body;
    expect(accepted).toMatchObject({ action_id: expect.any(String), decided_groups: 2, discarded_media: 2, conflict_count: 1 });
    expect(accepted.conflicts).toEqual([expect.objectContaining({ field: 'class', kept: 'mug' })]);
    expect(await roles()).toEqual(['astronaut.jpg:keep', 'astronaut_crop.jpg:discard', 'chelsea.jpg:distinct', 'chelsea_q60.jpg:distinct', 'coffee.jpg:keep', 'coffee_small.jpg:discard']);
    expect((await review({ state: 'decided' })).groups.every((group) => group.decision!.verdict === 'not_duplicates' || group.decision!.action_id === accepted.action_id)).toBe(true);

    expect((await stack.request.delete(`${base()}/actions/${accepted.action_id}`).expect(200)).body).toEqual({ undone_decisions: 2 });
    expect(await roles()).toEqual(['chelsea.jpg:distinct', 'chelsea_q60.jpg:distinct']);
    expect((await stack.request.delete(`${base()}/actions/${accepted.action_id}`).expect(404)).body).toEqual({ detail: 'Accept all action not found' });
    expect((await preview()).total_groups).toBe(2);
    await stack.request.delete(`${base()}/decisions/${manual}`).expect(200);
  }, 120_000);

  it('caps the members a group answers with, the suggested keeper first', async () => {
    const capped = await review({ members_limit: 1 });
    expect(capped.groups.length).toBe(3);
    for (const group of capped.groups) {
      expect(group).toMatchObject({ member_count: 2, members: [expect.objectContaining({ media_id: group.suggested_keeper.media_id })] });
    }
  });

  it('refuses every decision while the dataset cannot change (409) and bad input (422), changing nothing', async () => {
    const ids = [await idOf('rocket.jpg'), await idOf('camera.jpg')];
    const before = await databaseFingerprint(stack.deps.db);
    const bodies: Array<[object, string]> = [
      [{ preview_token: 'abc' }, 'body.preview_token: preview_token must be the token a preview gave'],
      [{ expected_discarded_media: -1 }, 'body.expected_discarded_media: expected_discarded_media must be a whole number, 0 or more'],
      [{ max_discarded_media: 1.5 }, 'body.max_discarded_media: max_discarded_media must be a whole number, 0 or more'],
    ];
    for (const [body, detail] of bodies) expect((await stack.request.post(`${base()}/accept_suggestions`).send(body).expect(422)).body).toEqual({ detail });
    expect((await stack.request.get(base()).query({ members_limit: 0 }).expect(422)).body).toEqual({ detail: 'query.members_limit: members_limit must be a whole number 1-1000' });
    expect((await stack.request.get(`${base()}/accept_suggestions/preview`).query({ page_size: 0 }).expect(422)).body).toEqual({ detail: 'query.page_size: page_size must be a whole number 1-200' });
    expect((await stack.request.delete(`${base()}/actions/nope`).expect(422)).body).toEqual({ detail: 'params.action_id: action_id must be a UUID' });
    await stack.request.delete(`${base()}/actions/${randomUUID()}`).expect(404);
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);

    const { status_new: status } = await stack.deps.db('datasets').where({ id: datasetId }).first('status_new');
    await stack.deps.db('datasets').where({ id: datasetId }).update({ status_new: 'READ ONLY' });
    try {
      const frozen = await databaseFingerprint(stack.deps.db);
      const refused = { detail: expect.stringContaining('READ ONLY') };
      expect((await stack.request.post(`${base()}/decisions`).send({ groups: [{ media_ids: ids, verdict: 'not_duplicates' }] }).expect(409)).body).toEqual(refused);
      expect((await stack.request.post(`${base()}/accept_suggestions`).send({}).expect(409)).body).toEqual(refused);
      expect((await stack.request.delete(`${base()}/actions/${randomUUID()}`).expect(409)).body).toEqual(refused);
      expect((await stack.request.delete(`${base()}/decisions/${randomUUID()}`).expect(409)).body).toEqual(refused);
      expect(await databaseFingerprint(stack.deps.db)).toEqual(frozen);
      await stack.request.get(`${base()}/accept_suggestions/preview`).expect(200);
    } finally {
      await stack.deps.db('datasets').where({ id: datasetId }).update({ status_new: status });
    }
  });
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
      expect((await api.request.delete(`${base}/actions/${randomUUID()}`).set('Cookie', cookie).expect(403)).body).toEqual(refused);
      expect((await api.request.get(`${base}/accept_suggestions/preview`).set('Cookie', cookie).expect(200)).body).toMatchObject({ groups: [], total_groups: 0, discarded_media: 0 });
      expect((await api.request.delete(`${base}/decisions/${randomUUID()}`).set('Cookie', cookie).expect(403)).body).toEqual(refused);
      await api.request.get(base).expect(401);
      expect(await databaseFingerprint(db)).toEqual(before);
    } finally {
      await api.close();
    }
  });
});
