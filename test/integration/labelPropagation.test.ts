import { headMediaIdsByName } from '../support/versions';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { imageCollection } from '../../lib/vectors/vectorStore';
import { createReadyDataset } from '../support/datasets';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { eventually, photo, PHOTO_NAMES } from '../support/media';
import { loginCookie } from '../support/sessions';
import { expectLostTaskRepaired, sharedDatasetWithViewer } from '../support/sharedDataset';
import { startTestApi, startTestStack, type TestApi } from '../support/testStack';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
};

/** The media every seed's `maxNeighbours` nearest others (all of them compared) at `minSimilarity` or more give, seeds left out. */
function bruteForce(vectors: Map<string, Float32Array>, seeds: string[], minSimilarity: number, maxNeighbours: number): string[] {
  const found = new Set<string>();
  for (const seed of seeds) {
    const others = [...vectors].filter(([id]) => id !== seed).map(([id, vector]) => ({ id, similarity: cosine(vectors.get(seed)!, vector) }));
    others.sort((a, b) => b.similarity - a.similarity);
    for (const { id, similarity } of others.slice(0, maxNeighbours)) if (similarity >= minSimilarity && !seeds.includes(id)) found.add(id);
  }
  return [...found].sort();
}

async function finishedTask(api: Pick<TestApi, 'request'>, taskId: string) {
  return eventually(
    async () => (await api.request.get('/api/v1/tasks').query({ task_type: 'LABEL_PROPAGATION', page_size: 50 }).expect(200)).body.tasks.find((task: { task_id: string }) => task.task_id === taskId),
    (task) => ['COMPLETED', 'FAILED'].includes(task?.status),
  );
}

/** Label propagation through the real API, worker and vector index, checked against an exhaustive search over the same vectors. */
describe('label propagation', () => {
  let stack: Stack;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'labels-'));

  beforeAll(async () => {
    const variants = [
      sharp(photo('chelsea')).resize(200).jpeg({ quality: 60 }).toFile(path.join(scratch, 'chelsea_small.jpg')),
      sharp(photo('chelsea')).extract({ left: 20, top: 10, width: 280, height: 230 }).toFile(path.join(scratch, 'chelsea_crop.jpg')),
      sharp(photo('chelsea')).modulate({ brightness: 1.3 }).toFile(path.join(scratch, 'chelsea_bright.jpg')),
      sharp(photo('chelsea')).flop().toFile(path.join(scratch, 'chelsea_mirror.jpg')),
      sharp(photo('coffee')).resize(250).toFile(path.join(scratch, 'coffee_small.jpg')),
      sharp(photo('rocket')).grayscale().toFile(path.join(scratch, 'rocket_gray.jpg')),
    ];
    await Promise.all(variants);
    stack = await startTestStack();
    datasetId = await createReadyDataset(stack, 'labels', [...PHOTO_NAMES.map(photo), ...fs.readdirSync(scratch).map((file) => path.join(scratch, file))]);
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const idsByName = () => headMediaIdsByName(stack.deps.db, datasetId);
  const labelled = async (label: string, source: string) =>
    ((await stack.deps.db('media_labels as l').join('datasets as d', 'd.head_version_id', 'l.version_id').where({ 'd.id': datasetId, 'l.label': label, 'l.source': source }).pluck('l.media_id')) as string[]).sort();
  const propagate = (body: object) => stack.request.post(`/api/v1/dataset/${datasetId}/labels/propagate`).send(body);

  it.each([
    { minSimilarity: 0.8, maxNeighbours: 50 },
    { minSimilarity: 0.5, maxNeighbours: 2 },
    { minSimilarity: 0.95, maxNeighbours: 1000 },
  ])('labels the seeds and exactly the neighbours an exhaustive search finds (similarity ≥ $minSimilarity, ≤ $maxNeighbours each)', async ({ minSimilarity, maxNeighbours }) => {
    const ids = await idsByName();
    const vectors = await stack.deps.vectors.get(imageCollection(datasetId), [...ids.values()]);
    expect(vectors.size).toBe(ids.size);
    const seeds = [ids.get('chelsea.jpg')!, ids.get('rocket.jpg')!];
    const label = `label-${minSimilarity}-${maxNeighbours}`;
    const started = await propagate({ label, selection: { media_ids: seeds }, min_similarity: minSimilarity, max_neighbours: maxNeighbours }).expect(202);
    const task = await finishedTask(stack, started.body.task_id);
    const expected = bruteForce(vectors, seeds, minSimilarity, maxNeighbours);
    expect(expected.length).toBeGreaterThan(0);
    expect(task).toMatchObject({ status: 'COMPLETED', task_type: 'LABEL_PROPAGATION', dataset_id: datasetId });
    expect(task.status_message).toBe(`Labelled 2 selected media “${label}” and propagated it to ${expected.length} neighbours`);
    expect(await labelled(label, 'user')).toEqual([...seeds].sort());
    expect(await labelled(label, 'propagated')).toEqual(expected);
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('READY');
  });

  it('reaches the near copies of a photo and not the other photos', async () => {
    const ids = await idsByName();
    const started = await propagate({ label: 'cat', selection: { media_ids: [ids.get('chelsea.jpg')!] }, min_similarity: 0.8 }).expect(202);
    expect((await finishedTask(stack, started.body.task_id)).status).toBe('COMPLETED');
    const names = new Map([...ids].map(([name, id]) => [id, name]));
    const reached = (await labelled('cat', 'propagated')).map((id) => names.get(id)!);
    expect(reached).toEqual(expect.arrayContaining(['chelsea_small.jpg', 'chelsea_crop.jpg', 'chelsea_bright.jpg']));
    expect(reached.filter((name) => !name.startsWith('chelsea'))).toEqual([]);
  });

  it('makes labels Explore filters and exports see, and selects by filter, cluster and ids alike', async () => {
    const ids = await idsByName();
    const started = await propagate({ label: 'pet', selection: { vql: JSON.stringify([{ labels: { op: 'one_of', value: ['cat'] } }]) }, max_neighbours: 0 }).expect(202);
    expect((await finishedTask(stack, started.body.task_id)).status).toBe('COMPLETED');
    const cats = await stack.deps.db('media_labels').where({ label: 'cat' }).pluck('media_id');
    expect(await labelled('pet', 'user')).toEqual([...new Set(cats)].sort());

    const explore = await stack.request
      .get(`/api/v1/explore/${datasetId}`)
      .query({ entity_type: 'IMAGES', vql: JSON.stringify([{ labels: { op: 'one_of', value: ['pet'] } }]) })
      .expect(200);
    const shown = explore.body.clusters.flatMap((cluster: { previews: Array<{ media_id: string }> }) => cluster.previews.map((preview) => preview.media_id));
    expect(shown.sort()).toEqual(await labelled('pet', 'user'));

    const tag = (await stack.request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: 'pets' }).expect(201)).body;
    const everyPet = { vql: JSON.stringify([{ labels: { op: 'one_of', value: ['pet'] } }]) };
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send(everyPet).expect(200)).body).toEqual({ tagged: cats.length });
    const cluster = explore.body.clusters[0].cluster_id as string;
    const union = { media_ids: [ids.get('coffee.jpg')!], cluster_ids: [cluster], ...everyPet };
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send(union).expect(200)).body).toEqual({ tagged: 1 });
    expect((await stack.request.delete(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ vql: '[]' }).expect(200)).body).toEqual({ untagged: cats.length + 1 });
  });

  it('refuses bad input with 422 {detail} and changes nothing', async () => {
    const ids = await idsByName();
    const seed = ids.get('coffee.jpg')!;
    const before = await databaseFingerprint(stack.deps.db);
    const refusals: Array<[object, string]> = [
      [{ selection: { media_ids: [seed] } }, 'body.label: label is required'],
      [{ label: '  ', selection: { media_ids: [seed] } }, 'body.label: label must not be empty'],
      [{ label: 'x', selection: {} }, 'body.selection: give media_ids, cluster_id, cluster_ids or vql'],
      [{ label: 'x', selection: { media_ids: [] } }, 'body.selection.media_ids: media_ids must not be empty'],
      [{ label: 'x', selection: { media_ids: ['nope'] } }, 'body.selection.media_ids.0: media_ids must be UUIDs'],
      [{ label: 'x', selection: { vql: '[{"text":{"op":"semantic","value":"cat"}}]' } }, 'body.selection.vql: vql: a semantic text filter ranks media and selects none; use op fts or other filters'],
      [{ label: 'x', selection: { vql: '{' } }, 'body.selection.vql: vql: not valid JSON'],
      [{ label: 'x', selection: { media_ids: [seed] }, min_similarity: 0.2 }, 'body.min_similarity: min_similarity must be between 0.5 and 1'],
      [{ label: 'x', selection: { media_ids: [seed] }, max_neighbours: 1.5 }, 'body.max_neighbours: max_neighbours must be an integer'],
      [{ label: 'x', selection: { media_ids: [seed] }, max_neighbours: 5000 }, 'body.max_neighbours: max_neighbours must be between 0 and 1000'],
      [{ label: 'x', selection: { media_ids: [randomUUID()] } }, 'The selection names no media of this dataset'],
      [{ label: 'x', selection: { cluster_ids: [randomUUID()] } }, 'The selection names no media of this dataset'],
    ];
    for (const [body, detail] of refusals) expect((await propagate(body).expect(422)).body).toEqual({ detail });
    await stack.request.post(`/api/v1/dataset/${randomUUID()}/labels/propagate`).send({ label: 'x', selection: { media_ids: [seed] } }).expect(404);
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);
  });
});

describe('label propagation while it waits for a worker', () => {
  let api: TestApi;
  let cookie: string;
  let datasetId: string;
  let mediaId: string;

  beforeAll(async () => {
    api = await startTestApi({ DISABLE_AUTH: 'false' });
    ({ datasetId, mediaId } = await sharedDatasetWithViewer(api.deps.db));
    cookie = await loginCookie(api, 'viewer@example.com', 'viewer-password');
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  const body = () => ({ label: 'x', selection: { media_ids: [mediaId] } });

  it('refuses a viewer (403) and a caller without a session (401), changing nothing', async () => {
    const before = await databaseFingerprint(api.deps.db);
    const url = `/api/v1/dataset/${datasetId}/labels/propagate`;
    expect((await api.request.post(url).set('Cookie', cookie).send(body()).expect(403)).body).toEqual({
      detail: 'This operation needs editor access to the dataset; you have viewer',
    });
    await api.request.post(url).send(body()).expect(401);
    expect(await databaseFingerprint(api.deps.db)).toEqual(before);
  });

  it('holds the dataset READ ONLY, so a snapshot or a second propagation is refused, and gives it back when its workflow is lost', async () => {
    const owner = await loginCookie(api, 'owner@example.com', 'owner-password');
    const url = `/api/v1/dataset/${datasetId}/labels/propagate`;
    const { task_id: taskId } = (await api.request.post(url).set('Cookie', owner).send(body()).expect(202)).body;
    expect((await api.request.get(`/api/v1/dataset/${datasetId}`).set('Cookie', owner).expect(200)).body.status_new).toBe('READ ONLY');
    const snapshot = await api.request.post(`/api/v1/dataset/${datasetId}/snapshot`).set('Cookie', owner).send({ name: 'during' }).expect(409);
    expect(snapshot.body.detail).toContain('LABEL_PROPAGATION');
    expect((await api.request.post(url).set('Cookie', owner).send(body()).expect(409)).body).toEqual({ detail: 'Dataset is not READY (status READ ONLY)' });

    await expectLostTaskRepaired(api, owner, datasetId, taskId, 'LABEL_PROPAGATION');
  });
});
