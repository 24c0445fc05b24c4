import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { labelledFixture } from '../support/labelledImages';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { newDatasetWithTransaction, waitForMap, waitForTask } from '../support/datasets';
import { eventually } from '../support/media';
import { loginCookie } from '../support/sessions';
import { sharedDatasetWithViewer } from '../support/sharedDataset';
import { startTestApi, startTestStack, type TestApi } from '../support/testStack';
import { headMediaIdsByName, headVersionId } from '../support/versions';
import { mapPage } from '../support/map';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const IMAGES = 200;

/**
 * The user's own labels through the real API, worker, embedding model and vector index, on real Fashion-MNIST
 * photos sent as class folders (10 % of them in the wrong folder): the classes with their counts, VQL filters on
 * them, the label check's suggestions accepted, labels set on a selection and by propagation, and each undone.
 */
describe("the user's labels", () => {
  let stack: Stack;
  let datasetId: string;
  let truth: Map<string, string>;
  let flipped: Set<string>;
  /** The label each file was sent with (its folder). */
  const given = new Map<string, string>();
  let ids: Map<string, string>;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'user-labels-'));
  const classes = () => stack.request.get(`/api/v1/dataset/${datasetId}/classes`).expect(200).then((response) => response.body);
  /** The class of each file, as the media facts show it. */
  const classOf = async (fileName: string) =>
    (await stack.request.get(`/api/v1/dataset/${datasetId}/media/${ids.get(fileName)}`).expect(200)).body.class as string | null;
  /** How many images a VQL filter matches (tagging everything it matches with a fresh tag counts them). */
  const matching = async (vql: unknown[]) => {
    const tag = (await stack.request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: `count ${Math.random()}` }).expect(201)).body;
    return (await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ vql: JSON.stringify(vql) }).expect(200)).body.tagged as number;
  };

  beforeAll(async () => {
    const fixture = await labelledFixture(IMAGES, 0, scratch);
    ({ truth, flipped } = fixture);
    const metadata: Array<{ file_name: string; category: string }> = JSON.parse(fs.readFileSync(fixture.metadataFile, 'utf8'));
    stack = await startTestStack();
    const created = await newDatasetWithTransaction(stack, 'fashion folders');
    datasetId = created.datasetId;
    for (let start = 0; start < metadata.length; start += 50) {
      const request = stack.request.post(`/api/v1/ingestion/${datasetId}/data_files/${created.transId}`);
      for (const { file_name: fileName, category } of metadata.slice(start, start + 50)) {
        given.set(`${category}/${fileName}`, category);
        request.attach('files', path.join(path.dirname(fixture.files[0]), fileName), { filepath: `${category}/${fileName}` } as { filename?: string });
      }
      await request.expect(202);
    }
    await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${created.transId}`).query({ labels_from: 'folder' }).expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 1_500_000)).status).toBe('COMPLETED');
    await waitForMap(stack, datasetId);
    ids = await headMediaIdsByName(stack.deps.db, datasetId);
  }, 1_800_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const trueClass = (name: string) => truth.get(path.posix.basename(name))!;

  it('counts each class, and VQL finds each class (ground_truth) and any custom-metadata field (metadata)', async () => {
    const counts = new Map<string, number>();
    for (const label of given.values()) counts.set(label, (counts.get(label) ?? 0) + 1);
    const listed = await classes();
    expect(listed.label_field).toBe('label');
    expect(listed.unlabelled).toBe(0);
    expect(new Map(listed.classes.map((row: { label: string; count: number }) => [row.label, row.count]))).toEqual(counts);
    const [biggest, second] = listed.classes;
    expect(await matching([{ ground_truth: { op: 'one_of', value: [biggest.label] } }])).toBe(biggest.count);
    expect(await matching([{ ground_truth: { op: 'one_of', value: [biggest.label, second.label] } }])).toBe(biggest.count + second.count);
    expect(await matching([{ metadata: { field: 'label', op: 'one_of', value: [second.label] } }])).toBe(second.count);
    expect(await matching([{ metadata: { field: 'no such field', op: 'one_of', value: [second.label] } }])).toBe(0);
    const refused = await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', vql: JSON.stringify([{ ground_truth: { op: 'one_of', value: [] } }]) });
    expect([refused.status, refused.body.detail]).toEqual([422, 'vql[0].ground_truth.value: value must list at least one value']);
  });

  it("shows each preview's class, each cluster its previews' classes, and a cluster's members their class", async () => {
    const byId = new Map([...ids].map(([name, id]) => [id, given.get(name)!]));
    const { clusters } = (await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', page_size: 20 }).expect(200)).body as {
      clusters: Array<{ cluster_id: string; classes: string[] | null; previews: Array<{ media_id: string; class: string | null }> }>;
    };
    expect(clusters.length).toBeGreaterThan(0);
    for (const cluster of clusters) {
      for (const preview of cluster.previews) expect(preview.class).toBe(byId.get(preview.media_id));
      expect([...(cluster.classes ?? [])].sort()).toEqual([...new Set(cluster.previews.map((preview) => byId.get(preview.media_id)))].sort());
    }
    const members = (await stack.request.get(`/api/v1/dataset/${datasetId}/clusters/${clusters[0].cluster_id}/media`).expect(200)).body.media as Array<{ media_id: string; class: string | null }>;
    for (const member of members) expect(member.class).toBe(byId.get(member.media_id));
  });

  it('colours the map by class: its legend has the classes with their counts, and each point the colour of its class', async () => {
    const listed = await classes();
    const map = (await stack.request.get(`/api/v1/dataset/${datasetId}/map`).expect(200)).body;
    expect(map.legends.class.map((entry: { label: string; count: number }) => [entry.label, entry.count])).toEqual(
      listed.classes.map((row: { label: string; count: number }) => [row.label, row.count]),
    );
    const page = await mapPage(stack.request.get(`/api/v1/dataset/${datasetId}/map/points`).query({ limit: 1000 }));
    const points: Array<{ media_id: string; point_index: number }> = await stack.deps
      .db('map_points')
      .where({ version_id: await headVersionId(stack.deps.db, datasetId) })
      .select('media_id', 'point_index');
    const nameOf = new Map([...ids].map(([name, id]) => [id, name]));
    expect(points.length).toBe(given.size);
    for (const point of points) {
      const label = map.legends.class[page.class[point.point_index] - 1]?.label;
      expect([nameOf.get(point.media_id), label]).toEqual([nameOf.get(point.media_id), given.get(nameOf.get(point.media_id)!)]);
    }
  });

  it("accepts the label check's suggestions above a score, each item getting the class suggested, and undoes them", async () => {
    const versionId = await headVersionId(stack.deps.db, datasetId);
    const flags = async (): Promise<Array<{ file_name: string; confidence: number; suggested: string }>> =>
      stack.deps
        .db('media_issues as i')
        .join('media as m', (join) => join.on('m.id', 'i.media_id').andOn('m.version_id', 'i.version_id'))
        .where({ 'i.version_id': versionId, 'i.issue_type': 'mislabel' })
        .select('m.file_name', 'i.confidence', stack.deps.db.raw(`i.details->>'suggested_label' AS suggested`));
    const flagged = await flags();
    const above = flagged.filter((flag) => flag.confidence >= 0.9);
    const below = flagged.filter((flag) => flag.confidence < 0.9);
    expect(above.length).toBeGreaterThan(0);
    expect(below.length).toBeGreaterThan(0);
    // Most confident flags are real flips (the check's precision and recall are measured in bench:label-quality).
    expect(above.filter((flag) => flipped.has(path.posix.basename(flag.file_name))).length).toBeGreaterThan(above.length / 2);

    const report = async () => (await stack.request.get(`/api/v1/dataset/${datasetId}/label_quality`).expect(200)).body;
    const checked = await report();
    expect(checked.n_flagged).toBe(flagged.length);

    const accepted = (await stack.request.post(`/api/v1/dataset/${datasetId}/classes/accept_suggestions`).send({ min_score: 0.9 }).expect(200)).body;
    expect(accepted.changed).toBe(above.length);
    // The report follows the fixes: the flags left, the classes as they are now, a lower estimated error rate.
    const fixed = await report();
    expect(fixed.n_flagged).toBe(below.length);
    expect(fixed.checked_at).toBe(checked.checked_at);
    const nowListed = await classes();
    expect(new Map(fixed.classes.map((row: { label: string; count: number }) => [row.label, row.count]))).toEqual(
      new Map(nowListed.classes.map((row: { label: string; count: number }) => [row.label, row.count])),
    );
    expect(fixed.estimated_error_rate).toBeLessThan(checked.estimated_error_rate);
    expect(fixed.confused_pairs.reduce((sum: number, pair: { count: number }) => sum + pair.count, 0)).toBeLessThanOrEqual(below.length);
    for (const flag of above) expect(await classOf(flag.file_name)).toBe(flag.suggested);
    for (const flag of below) expect(await classOf(flag.file_name)).toBe(given.get(flag.file_name));
    // The items decided lose their flags; the others keep theirs.
    expect((await flags()).map((flag) => flag.file_name).sort()).toEqual(below.map((flag) => flag.file_name).sort());
    // One listed item, whatever its score.
    const one = (await stack.request.post(`/api/v1/dataset/${datasetId}/classes/accept_suggestions`).send({ media_ids: [ids.get(below[0].file_name)] }).expect(200)).body;
    expect(one.changed).toBe(1);
    expect(await classOf(below[0].file_name)).toBe(below[0].suggested);

    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/classes/undo`).expect(200)).body).toEqual({ action_id: one.action_id, action: 'accept', undone: 1 });
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/classes/undo`).expect(200)).body).toEqual({ action_id: accepted.action_id, action: 'accept', undone: above.length });
    for (const name of given.keys()) expect(await classOf(name)).toBe(given.get(name));
    expect(await report()).toEqual(checked);
    // The flags come back with the labels they were about.
    expect((await flags()).sort((a, b) => a.file_name.localeCompare(b.file_name))).toEqual([...flagged].sort((a, b) => a.file_name.localeCompare(b.file_name)));
    // Nothing older to undo.
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/classes/undo`).expect(404)).body).toEqual({ detail: 'No label change to undo' });
  });

  it('sets a class on a selection, records it in the history, and takes it off again', async () => {
    const names = [...given.keys()].slice(0, 3);
    const set = (await stack.request
      .post(`/api/v1/dataset/${datasetId}/classes/set`)
      .send({ selection: { media_ids: names.map((name) => ids.get(name)) }, label: 'Ankle boot ✓' })
      .expect(200)).body;
    expect(set.changed).toBe(3);
    for (const name of names) expect(await classOf(name)).toBe('Ankle boot ✓');
    expect((await classes()).classes).toContainEqual({ label: 'Ankle boot ✓', count: 3 });
    const history = (await stack.request.get(`/api/v1/dataset/${datasetId}/media/${ids.get(names[0])}/class_history`).expect(200)).body.changes;
    expect(history[0]).toMatchObject({ action_id: set.action_id, action: 'set', field: 'label', previous: given.get(names[0]), label: 'Ankle boot ✓', undone: false });
    // The same class again changes nothing.
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/classes/set`).send({ selection: { media_ids: [ids.get(names[0])] }, label: 'Ankle boot ✓' }).expect(200)).body.changed).toBe(0);

    // The map's class legend follows at once.
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}/map`).expect(200)).body.legends.class).toContainEqual({ index: expect.any(Number), label: 'Ankle boot ✓', count: 3 });

    const cleared = (await stack.request.post(`/api/v1/dataset/${datasetId}/classes/set`).send({ selection: { media_ids: [ids.get(names[0])] }, label: null }).expect(200)).body;
    expect(cleared.changed).toBe(1);
    expect(await classOf(names[0])).toBeNull();
    expect((await classes()).unlabelled).toBe(1);
    await stack.request.post(`/api/v1/dataset/${datasetId}/classes/undo`).expect(200);
    await stack.request.post(`/api/v1/dataset/${datasetId}/classes/undo`).expect(200);
    for (const name of names) expect(await classOf(name)).toBe(given.get(name));
    const undoneHistory = (await stack.request.get(`/api/v1/dataset/${datasetId}/media/${ids.get(names[0])}/class_history`).expect(200)).body.changes;
    expect(undoneHistory.slice(0, 4).map((change: { action: string; undone: boolean }) => [change.action, change.undone])).toEqual([
      ['undo', false],
      ['undo', false],
      ['set', true],
      ['set', true],
    ]);
  });

  it('propagates a class to near neighbours into the label field, as one undoable action', async () => {
    const seed = [...given.keys()].find((name) => given.get(name) === trueClass(name))!;
    const body = { label: 'propagated class', selection: { media_ids: [ids.get(seed)] }, min_similarity: 0.5, max_neighbours: 5 };
    const before = await databaseFingerprint(stack.deps.db);
    const preview = (await stack.request.post(`/api/v1/dataset/${datasetId}/labels/propagate/preview`).send(body).expect(200)).body;
    expect(preview).toMatchObject({ seeds: 1, neighbours: 5, changes: 6 });
    const counts = preview.by_similarity.map((row: { neighbours: number }) => row.neighbours);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(preview.by_similarity[0]).toEqual({ min_similarity: 0.5, neighbours: 5 });
    const missing = await stack.request.post(`/api/v1/dataset/${datasetId}/labels/propagate/preview`).send({ ...body, selection: { media_ids: [datasetId] } });
    expect([missing.status, missing.body]).toEqual([422, { detail: 'The selection names no media of this dataset' }]);
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);

    const started = await stack.request.post(`/api/v1/dataset/${datasetId}/labels/propagate`).send(body).expect(202);
    const task = await eventually(
      async () => (await stack.request.get('/api/v1/tasks').query({ task_type: 'LABEL_PROPAGATION' }).expect(200)).body.tasks.find((row: { task_id: string }) => row.task_id === started.body.task_id),
      (row) => ['COMPLETED', 'FAILED'].includes(row?.status),
      300_000,
    );
    expect(task.status).toBe('COMPLETED');
    const count = (await classes()).classes.find((row: { label: string }) => row.label === 'propagated class')?.count;
    expect(count).toBe(preview.changes);
    expect(await classOf(seed)).toBe('propagated class');
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/classes/undo`).expect(200)).body).toMatchObject({ action: 'propagate', undone: count });
    expect(await classOf(seed)).toBe(given.get(seed));
  });

  it('refuses bad labels and a dataset that cannot change (409), changing nothing', async () => {
    const url = `/api/v1/dataset/${datasetId}/classes/set`;
    const selection = { media_ids: [ids.get([...given.keys()][0])] };
    const before = await databaseFingerprint(stack.deps.db);
    const cases: Array<[unknown, string]> = [
      [{ selection, label: '' }, 'body.label: label must not be empty'],
      [{ selection, label: '   ' }, 'body.label: label must not be empty'],
      [{ selection, label: 'x'.repeat(101) }, 'body.label: label is at most 100 characters'],
      [{ selection, label: 'cats\u2028path: /x' }, 'body.label: label must not contain control characters or line breaks'],
      [{ selection, label: 'cats\u0085' }, 'body.label: label must not contain control characters or line breaks'],
      [{ selection, label: 'a\tb' }, 'body.label: label must not contain control characters or line breaks'],
      [{ selection }, 'body.label: label is required'],
    ];
    for (const [body, detail] of cases) expect((await stack.request.post(url).send(body as object).expect(422)).body).toEqual({ detail });
    await stack.request.post(`/api/v1/dataset/${datasetId}/classes/accept_suggestions`).send({ min_score: 2 }).expect(422);
    await stack.request.post(`/api/v1/dataset/${datasetId}/labels/propagate`).send({ label: 'a\u2028b', selection }).expect(422);
    await stack.deps.db('datasets').where({ id: datasetId }).update({ status_new: 'READ ONLY' });
    try {
      expect((await stack.request.post(url).send({ selection, label: 'x' }).expect(409)).body.detail).toBe('Dataset is not READY (status READ ONLY)');
      await stack.request.post(`/api/v1/dataset/${datasetId}/classes/accept_suggestions`).send({}).expect(409);
      await stack.request.post(`/api/v1/dataset/${datasetId}/classes/undo`).expect(409);
    } finally {
      await stack.deps.db('datasets').where({ id: datasetId }).update({ status_new: 'READY' });
    }
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });
});

describe("the user's labels with logins", () => {
  let api: TestApi;
  let datasetId: string;
  let mediaId: string;

  beforeAll(async () => {
    api = await startTestApi({ DISABLE_AUTH: 'false' });
    ({ datasetId, mediaId } = await sharedDatasetWithViewer(api.deps.db, { label: 'cat' }));
    await api.deps.db('dataset_versions').where({ id: await headVersionId(api.deps.db, datasetId) }).update({ label_quality: JSON.stringify({ label_field: 'label', split_field: null }) });
  });
  afterAll(() => api?.close());

  it('lets a viewer read the classes and history but not change them (403), changing nothing', async () => {
    const viewer = await loginCookie(api, 'viewer@example.com', 'viewer-password');
    const before = await databaseFingerprint(api.deps.db);
    expect((await api.request.get(`/api/v1/dataset/${datasetId}/classes`).set('Cookie', viewer).expect(200)).body).toEqual({
      label_field: 'label',
      split_field: null,
      classes: [{ label: 'cat', count: 1 }],
      unlabelled: 0,
    });
    await api.request.get(`/api/v1/dataset/${datasetId}/media/${mediaId}/class_history`).set('Cookie', viewer).expect(200);
    const refusal = { detail: 'This operation needs editor access to the dataset; you have viewer' };
    expect((await api.request.post(`/api/v1/dataset/${datasetId}/classes/set`).set('Cookie', viewer).send({ selection: { media_ids: [mediaId] }, label: 'dog' }).expect(403)).body).toEqual(refusal);
    expect((await api.request.post(`/api/v1/dataset/${datasetId}/classes/accept_suggestions`).set('Cookie', viewer).send({}).expect(403)).body).toEqual(refusal);
    expect((await api.request.post(`/api/v1/dataset/${datasetId}/classes/undo`).set('Cookie', viewer).expect(403)).body).toEqual(refusal);
    await api.request.post(`/api/v1/dataset/${datasetId}/classes/set`).send({ selection: { media_ids: [mediaId] }, label: 'dog' }).expect(401);
    expect(await databaseFingerprint(api.deps.db)).toEqual(before);

    const owner = await loginCookie(api, 'owner@example.com', 'owner-password');
    expect((await api.request.post(`/api/v1/dataset/${datasetId}/classes/set`).set('Cookie', owner).send({ selection: { media_ids: [mediaId] }, label: 'dog' }).expect(200)).body.changed).toBe(1);
  });
});
