import { randomUUID } from 'node:crypto';
import { addDatasetMember, createDataset } from '../../db/repositories/datasets';
import { createUser } from '../../db/repositories/users';
import { Organization, Workspace } from '../../db/models';
import { blobKey, modelInputKey } from '../../lib/storage/objectStore';
import { createReadyDataset, newDatasetWithTransaction, waitForDatasetStatus, waitForTask } from '../support/datasets';
import { evalPhotos } from '../support/evalPhotos';
import { photo } from '../support/media';
import { startTestStack } from '../support/testStack';
import { loginCookie } from '../support/sessions';

type Stack = Awaited<ReturnType<typeof startTestStack>>;
type Preview = { media_id: string; file_name: string; caption: string | null };
type Cluster = { previews: Preview[]; labels: string[] | null; relevance_score?: number };
type Model = { id: string; name: string; type: string; status: string; vendor: string; description: string; dependencies: string[] | null };

const TAGGER = 'imagenet-tagger@1';
const CAPTIONER = 'tag-captioner@1';
const DETECTOR = 'coco-centernet@1';
const OBJECT_CAPTIONER = 'object-captioner@1';

describe('enrichment through the real API, worker and models', () => {
  let stack: Stack;
  let sourceId: string;
  let enrichedId: string;

  beforeAll(async () => {
    stack = await startTestStack();
    const scenes = evalPhotos('darknet-dog.jpg', 'darknet-kite.jpg', 'darknet-horses.jpg');
    sourceId = await createReadyDataset(stack, 'everyday', [...['chelsea', 'coffee', 'motorcycle_left', 'camera', 'astronaut'].map(photo), ...scenes]);
  }, 180_000);
  afterAll(() => stack.close());

  const enrich = (id: string, body: unknown) => stack.request.post(`/api/v1/dataset/${id}/enrich_dataset`).send(body as object);
  const explore = (id: string, query: Record<string, string>) => stack.request.get(`/api/v1/explore/${id}`).query({ entity_type: 'IMAGES', ...query }).expect(200);
  const names = (clusters: Cluster[]) => clusters.flatMap((cluster) => cluster.previews.map((preview) => preview.file_name));
  const allMedia = async (id: string) => (await explore(id, { threshold: '0' })).body.clusters.flatMap((cluster: Cluster) => cluster.previews) as Preview[];
  const counts = async () => ({
    datasets: Number((await stack.deps.db('datasets').count({ n: '*' }).first())!.n),
    tasks: Number((await stack.deps.db('tasks').count({ n: '*' }).first())!.n),
  });

  it('lists the models with every field: what ships here is Active, models without weights are Coming Soon', async () => {
    const models = (await stack.request.get(`/api/v1/enrichment/${sourceId}/list_models`).expect(200)).body as Model[];
    for (const model of models) {
      expect(Object.keys(model).sort()).toEqual(['dependencies', 'description', 'id', 'name', 'status', 'type', 'vendor']);
      expect(model.id).toMatch(/@\d+$/);
    }
    const byId = new Map(models.map((model) => [model.id, model]));
    expect(byId.get(TAGGER)).toMatchObject({ type: 'IMAGE_TAGGING', status: 'Active', dependencies: null });
    expect(byId.get(CAPTIONER)).toMatchObject({ type: 'CAPTION_IMAGES', status: 'Active' });
    expect(byId.get('clip@1')).toMatchObject({ type: 'MULTIMODEL_IMAGE_ENCODING', status: 'Coming Soon' });
    expect(byId.get('vision-endpoint-captioner@1')).toMatchObject({ type: 'CAPTION_IMAGES', status: 'Coming Soon' });
    expect(byId.get(DETECTOR)).toMatchObject({ type: 'OBJECT_DETECTION', status: 'Active' });
    expect(byId.get(OBJECT_CAPTIONER)).toMatchObject({ type: 'CAPTION_OBJECTS', status: 'Active', dependencies: ['OBJECT_DETECTION'] });
    await stack.request.get(`/api/v1/enrichment/${randomUUID()}/list_models`).expect(404);
    await stack.request.get('/api/v1/enrichment/not-a-uuid/list_models').expect(422);
  });

  it('keeps no model input once the images are embedded (the ingest prepares them for the embedding only)', async () => {
    const { db, store } = stack.deps;
    const versionId = (await db('datasets').where({ id: sourceId }).first('head_version_id')).head_version_id;
    const blobs = (await db('media').where({ version_id: versionId, embedded: true }).select('blob_sha256')).map((row: { blob_sha256: string }) => row.blob_sha256);
    expect(blobs).toHaveLength(8);
    for (const sha256 of blobs) {
      expect(await store.exists(blobKey(sha256))).toBe(true);
      expect(await store.exists(modelInputKey(sha256, { size: 224, resize: 'fill' }))).toBe(false);
    }
  });

  it('shows a NEW context before any enrichment', async () => {
    const context = (await stack.request.get(`/api/v1/enrichment/${sourceId}/context`).expect(200)).body;
    expect(context).toEqual({ enrichment_context_id: expect.any(String), status: 'NEW', dataset_enrichment_models: { enrichment_models: {} } });
    await stack.request.get(`/api/v1/enrichment/${randomUUID()}/context`).expect(404);
  });

  it('refuses bad requests with their codes and a detail, starting nothing', async () => {
    const before = await counts();
    const detail = async (body: unknown, status: number) => (await enrich(sourceId, body).expect(status)).body.detail as string;
    expect(await detail({}, 422)).toMatch(/enrichment_models/);
    expect(await detail({ enrichment_models: {} }, 422)).toMatch(/at least one model/);
    expect(await detail({ enrichment_models: { FACE_SWAP: TAGGER } }, 422)).toMatch(/enrichment types are IMAGE_TAGGING/);
    expect(await detail({ enrichment_models: { IMAGE_TAGGING: 7 } }, 422)).toMatch(/enrichment_models/);
    expect(await detail({ enrichment_models: { IMAGE_TAGGING: 'no-such-model@1' } }, 404)).toBe('Enrichment model no-such-model@1 not found');
    expect(await detail({ enrichment_models: { OBJECT_DETECTION: TAGGER } }, 404)).toBe(`Enrichment model ${TAGGER} is a IMAGE_TAGGING model, not OBJECT_DETECTION`);
    expect(await detail({ enrichment_models: { MULTIMODEL_IMAGE_ENCODING: 'clip@1' } }, 409)).toMatch(/clip@1 is Coming Soon/);
    expect(await detail({ enrichment_models: { CAPTION_OBJECTS: OBJECT_CAPTIONER } }, 409)).toBe(`${OBJECT_CAPTIONER} needs OBJECT_DETECTION applied first (or requested with it)`);
    await enrich(randomUUID(), { enrichment_models: { IMAGE_TAGGING: TAGGER } }).expect(404);

    const { datasetId: uploading } = await newDatasetWithTransaction(stack, 'not ready');
    const after = await counts();
    expect((await enrich(uploading, { enrichment_models: { IMAGE_TAGGING: TAGGER } }).expect(409)).body).toEqual({ detail: 'Dataset is not READY (status UPLOADING)' });
    expect(await counts()).toEqual(after);
    expect(after.tasks).toBe(before.tasks);
    expect((await stack.request.get(`/api/v1/dataset/${sourceId}`).expect(200)).body.status_new).toBe('READY');
  });

  it('makes a new READY dataset holding the same media with tags and captions, while the source stays as it was', async () => {
    const models = { IMAGE_TAGGING: TAGGER, OBJECT_DETECTION: DETECTOR, CAPTION_OBJECTS: OBJECT_CAPTIONER, CAPTION_IMAGES: CAPTIONER };
    const started = (await enrich(sourceId, { enrichment_models: models }).expect(200)).body;
    enrichedId = started.dataset_id;
    expect(enrichedId).not.toBe(sourceId);
    const task = await waitForTask(stack, enrichedId, ['COMPLETED', 'FAILED']);
    expect(task).toMatchObject({ task_type: 'ENRICHMENT', status: 'COMPLETED', progress_percentage: 100, error_message: null });
    expect((await stack.request.post(`/api/v1/tasks/${task.task_id}/abort`).expect(409)).body).toEqual({ detail: 'Only DATASET_CREATION tasks can be aborted (this is ENRICHMENT)' });
    const enriched = await waitForDatasetStatus(stack, enrichedId, ['READY', 'ERROR']);
    expect(enriched).toMatchObject({ status_new: 'READY', display_name: 'everyday (enriched)', n_images: 8 });
    expect((await stack.request.get(`/api/v1/dataset/${sourceId}`).expect(200)).body.status_new).toBe('READY');

    // The same media (ids kept: no bytes copied, no vectors recomputed), now described.
    const source = await allMedia(sourceId);
    const copy = await allMedia(enrichedId);
    expect(copy.map((media) => media.media_id).sort()).toEqual(source.map((media) => media.media_id).sort());
    expect(source.every((media) => media.caption === null)).toBe(true);
    const captionOf = (file: string) => copy.find((media) => media.file_name === file)!.caption;
    expect(captionOf('chelsea.jpg')).toMatch(/^a photo of an? .*cat/);
    expect(captionOf('coffee.jpg')).toMatch(/espresso/);
    expect(captionOf('motorcycle_left.jpg')).toMatch(/motorcycle/);
    expect(captionOf('darknet-dog.jpg')).toMatch(/^a photo of .*dog.* and .*bicycle|^a photo of .*bicycle.*dog/);
    expect(captionOf('darknet-kite.jpg')).toMatch(/people.* and .* kites/);
    expect(captionOf('darknet-horses.jpg')).toMatch(/horses/);

    // Objects are entities with a box and a confidence; the dog-and-bicycle photo has both.
    const { db } = stack.deps;
    const versionId = (await db('datasets').where({ id: enrichedId }).first('head_version_id')).head_version_id;
    const objects = await db('media_objects as o')
      .join('media as m', (join) => join.on('m.version_id', 'o.version_id').andOn('m.id', 'o.media_id'))
      .where('o.version_id', versionId)
      .select('m.file_name', 'o.label', 'o.confidence', 'o.box_x', 'o.box_y', 'o.box_width', 'o.box_height', 'o.caption');
    const labelsIn = (file: string) => objects.filter((object) => object.file_name === file).map((object) => object.label);
    expect(labelsIn('darknet-dog.jpg')).toEqual(expect.arrayContaining(['dog', 'bicycle']));
    expect(labelsIn('darknet-kite.jpg')).toEqual(expect.arrayContaining(['person', 'kite']));
    expect(labelsIn('motorcycle_left.jpg')).toContain('motorcycle');
    for (const object of objects) {
      expect(object.confidence).toBeGreaterThanOrEqual(0.3);
      for (const value of [object.box_x, object.box_y, object.box_width, object.box_height]) expect(value).toBeGreaterThanOrEqual(0);
      expect(object.box_x + object.box_width).toBeLessThanOrEqual(1.0001);
      expect(object.caption).toMatch(new RegExp(object.label === 'person' ? 'person' : object.label.split(' ').at(-1)));
    }
    expect(await db('media_objects').where('version_id', (await db('datasets').where({ id: sourceId }).first('head_version_id')).head_version_id).count({ n: '*' }).first()).toEqual({ n: '0' });

    const context = (await stack.request.get(`/api/v1/enrichment/${enrichedId}/context`).expect(200)).body;
    expect(context).toMatchObject({ status: 'ENRICHED', dataset_enrichment_models: { enrichment_models: { IMAGE_TAGGING: TAGGER, CAPTION_IMAGES: CAPTIONER } } });
    expect((await stack.request.get(`/api/v1/enrichment/${sourceId}/context`).expect(200)).body.status).toBe('NEW');
  });

  it('finds photos by what they show: labels, VQL labels, caption search and VQL text', async () => {
    const cats = (await explore(enrichedId, { labels: '["cat"]' })).body.clusters as Cluster[];
    expect(names(cats)).toEqual(['chelsea.jpg']);
    expect(cats[0].labels).toEqual(expect.arrayContaining(['cat', 'Egyptian cat']));
    const vql = (filters: unknown[]) => JSON.stringify(filters);
    expect(names((await explore(enrichedId, { vql: vql([{ labels: { op: 'one_of', value: ['motorcycle'] } }]) })).body.clusters)).toEqual(['motorcycle_left.jpg']);
    // Detected objects label their image too: a dog and a bicycle.
    const withBicycles = names((await explore(enrichedId, { labels: '["bicycle"]' })).body.clusters);
    expect(withBicycles).toContain('darknet-dog.jpg');
    expect(names((await explore(enrichedId, { labels: '["kite"]' })).body.clusters)).toEqual(['darknet-kite.jpg']);
    expect(names((await explore(enrichedId, { caption: 'people flying kites on a beach' })).body.clusters)[0]).toBe('darknet-kite.jpg');
    expect(names((await explore(enrichedId, { caption: 'a dog next to a bicycle' })).body.clusters)[0]).toBe('darknet-dog.jpg');
    expect(names((await explore(enrichedId, { caption: 'horses in a field' })).body.clusters)[0]).toBe('darknet-horses.jpg');
    expect((await explore(sourceId, { labels: '["cat"]' })).body.clusters).toEqual([]);

    const byCaption = (await explore(enrichedId, { caption: 'a cat' })).body.clusters as Cluster[];
    expect(byCaption[0].previews[0].file_name).toBe('chelsea.jpg');
    const semantic = (await explore(enrichedId, { vql: vql([{ text: { op: 'semantic', value: 'a cup of coffee' } }]) })).body.clusters as Cluster[];
    expect(semantic[0].previews[0].file_name).toBe('coffee.jpg');
    expect(names((await explore(enrichedId, { vql: vql([{ text: { op: 'fts', value: 'motorcycle' } }]) })).body.clusters)).toEqual(['motorcycle_left.jpg']);
  });

  it('explores objects as entities: object clusters at every threshold with boxes, labels filtering objects, and visual search by a box', async () => {
    type ObjectCluster = Cluster & { type: string; n_objects: number; n_images: number; previews: Array<Preview & { bounding_box: { x: number; y: number; width: number; height: number } }> };
    const objectsAt = async (query: Record<string, string>) => (await explore(enrichedId, { entity_type: 'OBJECTS', ...query })).body.clusters as ObjectCluster[];
    const { db } = stack.deps;
    const versionId = (await db('datasets').where({ id: enrichedId }).first('head_version_id')).head_version_id;
    const total = Number((await db('media_objects').where({ version_id: versionId }).count({ n: '*' }).first())!.n);
    expect(total).toBeGreaterThan(20);
    const sizes: number[] = [];
    for (const threshold of ['0', '1', '2', '3', '4']) {
      const clusters = await objectsAt({ threshold });
      expect(clusters.every((cluster) => cluster.type === 'OBJECTS' && cluster.n_objects >= cluster.previews.length)).toBe(true);
      expect(clusters.reduce((sum, cluster) => sum + cluster.n_objects, 0)).toBe(total);
      sizes.push(clusters.length);
    }
    // Coarser thresholds join objects: never more clusters than at the finest.
    expect(sizes.every((count, i) => i === 0 || count <= sizes[i - 1])).toBe(true);
    expect(sizes[4]).toBeLessThan(sizes[0]);
    const previews = (await objectsAt({ threshold: '0' })).flatMap((cluster) => cluster.previews);
    for (const preview of previews) expect(preview.bounding_box).toEqual({ x: expect.any(Number), y: expect.any(Number), width: expect.any(Number), height: expect.any(Number) });
    expect((await explore(enrichedId, { threshold: '0' })).body.clusters[0].previews[0].bounding_box).toBeNull();

    const kites = await objectsAt({ threshold: '4', labels: '["kite"]' });
    expect(kites.flatMap((cluster) => cluster.labels)).toEqual(kites.map(() => 'kite'));
    const kiteCount = Number((await db('media_objects').where({ version_id: versionId, label: 'kite' }).count({ n: '*' }).first())!.n);
    expect(kites.reduce((sum, cluster) => sum + cluster.n_objects, 0)).toBe(kiteCount);
    expect(new Set(kites.flatMap((cluster) => cluster.previews.map((preview) => preview.file_name)))).toEqual(new Set(['darknet-kite.jpg']));
    // The source was never enriched: it has no objects.
    expect((await explore(sourceId, { entity_type: 'OBJECTS' })).body.clusters).toEqual([]);

    // Visual search with a box around the dog: the nearest object is that dog.
    const dog = await db('media_objects as o')
      .join('media as m', (join) => join.on('m.version_id', 'o.version_id').andOn('m.id', 'o.media_id'))
      .where({ 'o.version_id': versionId, 'm.file_name': 'darknet-dog.jpg', 'o.label': 'dog' })
      .first('o.box_x as x', 'o.box_y as y', 'o.box_width as width', 'o.box_height as height');
    const [dogPhoto] = evalPhotos('darknet-dog.jpg');
    const anchor = (
      await stack.request
        .post(`/api/v1/dataset/${enrichedId}/search-image-similarity`)
        .query({ entity_type: 'OBJECTS', bounding_box: JSON.stringify(dog) })
        .attach('file', dogPhoto)
        .expect(200)
    ).body;
    const [nearest] = await objectsAt({ anchor_media_id: anchor.anchor_media_id, anchor_type: 'UPLOAD' });
    expect(nearest.previews[0]).toMatchObject({ file_name: 'darknet-dog.jpg', caption: expect.stringMatching(/dog/) });
    expect(nearest.previews[0].bounding_box.x).toBeCloseTo(dog.x, 5);
    expect(nearest.relevance_score).toBeLessThan(0.1);
  });

  it('ranks images without captions by their concept vectors (MULTIMODEL_IMAGE_ENCODING) for text queries', async () => {
    const { dataset_id: conceptsId } = (await enrich(sourceId, { enrichment_models: { MULTIMODEL_IMAGE_ENCODING: 'concept-encoder@1' } }).expect(200)).body;
    expect(await waitForTask(stack, conceptsId, ['COMPLETED', 'FAILED'])).toMatchObject({ status: 'COMPLETED' });
    // The source enriched a second time: its copy gets a name of its own.
    expect(await waitForDatasetStatus(stack, conceptsId, ['READY'])).toMatchObject({ display_name: 'everyday (enriched 2)' });
    expect((await allMedia(conceptsId)).every((media) => media.caption === null)).toBe(true);
    for (const [query, file] of [['a cat', 'chelsea.jpg'], ['a motorbike', 'motorcycle_left.jpg'], ['a cup of coffee', 'coffee.jpg'], ['a tripod', 'camera.jpg']]) {
      const ranked = (await explore(conceptsId, { caption: query })).body.clusters as Cluster[];
      expect([query, ranked[0].previews[0].file_name]).toEqual([query, file]);
      expect(ranked[0].relevance_score).toBeLessThan(ranked[ranked.length - 1].relevance_score!);
    }
    const close = (await explore(conceptsId, { caption: 'a cat', textual_similarity_threshold: '0.5' })).body.clusters as Cluster[];
    expect(names(close)).toEqual(['chelsea.jpg']);
  });

  it('refuses to apply a model the dataset already has', async () => {
    expect((await enrich(enrichedId, { enrichment_models: { IMAGE_TAGGING: TAGGER } }).expect(409)).body).toEqual({
      detail: `IMAGE_TAGGING is already applied to this dataset with ${TAGGER}`,
    });
  });

  it('runs media added later to the enriched dataset through the same models', async () => {
    const vql = JSON.stringify([{ labels: { op: 'one_of', value: ['person'] } }]);
    const people = (await stack.request.post(`/api/v1/dataset/${enrichedId}/views`).query({ entity_type: 'OBJECTS', vql }).field('name', 'people').expect(200)).body;
    await stack.request.post(`/api/v1/dataset/${enrichedId}/add_media`).attach('files', photo('grace_hopper')).expect(202);
    const task = await waitForTask(stack, enrichedId, ['COMPLETED', 'FAILED']);
    expect(task).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED' });
    // A saved view on OBJECTS counted the people of the batch.
    const trend = (await stack.request.get(`/api/v1/dataset/${enrichedId}/views/${people.id}/trend`).expect(200)).body;
    expect(trend.points).toEqual([expect.objectContaining({ count: 1, cumulative: 1 })]);
    const added = (await allMedia(enrichedId)).find((media) => media.file_name === 'grace_hopper.jpg')!;
    expect(added.caption).toBe('a photo of a person with a military uniform');
    expect(names((await explore(enrichedId, { labels: '["military uniform"]' })).body.clusters)).toEqual(['grace_hopper.jpg']);
    expect(names((await explore(enrichedId, { labels: '["person"]' })).body.clusters)).toContain('grace_hopper.jpg');

    // A reindex re-clusters the images and keeps every model output.
    const outputs = async () => ({
      captions: (await allMedia(enrichedId)).map((media) => [media.file_name, media.caption]).sort(),
      objects: (await explore(enrichedId, { entity_type: 'OBJECTS', threshold: '0' })).body.clusters.reduce((sum: number, cluster: { n_objects: number }) => sum + cluster.n_objects, 0),
      kites: names((await explore(enrichedId, { labels: '["kite"]' })).body.clusters),
    });
    const before = await outputs();
    expect((await stack.request.get(`/api/v1/dataset/${enrichedId}`).expect(200)).body.status_new).toBe('PARTIAL INDEX');
    await stack.request.post(`/api/v1/dataset/${enrichedId}/reindex`).expect(202);
    expect(await waitForTask(stack, enrichedId, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'REINDEX', status: 'COMPLETED' });
    expect(await outputs()).toEqual(before);
  });
});

/** Who may enrich (editors and up), with authentication on: viewers get 403, strangers 404. */
describe('enrichment access', () => {
  let stack: Stack;
  let datasetId: string;
  const cookies: Record<string, string> = {};
  const password = 'correct horse battery';

  beforeAll(async () => {
    stack = await startTestStack({ DISABLE_AUTH: 'false', ADMIN_PASSWORD: password });
    const { db } = stack.deps;
    const workspaceId = (await Workspace.query(db).first())!.id;
    const alice = await createUser(db, { email: 'alice@example.com', password, workspaceId, workspaceRole: 'editor' });
    const bob = await createUser(db, { email: 'bob@example.com', password, workspaceId, workspaceRole: 'viewer' });
    const elsewhere = await Workspace.query(db).insertAndFetch({ organization_id: (await Organization.query(db).insertAndFetch({ name: 'elsewhere' })).id, name: 'elsewhere' });
    await createUser(db, { email: 'carol@example.com', password, workspaceId: elsewhere.id, workspaceRole: 'admin' });
    datasetId = (await createDataset(db, { name: 'ready', ownerId: alice.id, workspaceId, status: 'READY' })).id;
    await addDatasetMember(db, datasetId, bob.id, 'viewer');
    for (const name of ['alice', 'bob', 'carol']) {
      cookies[name] = await loginCookie(stack, `${name}@example.com`, password);
    }
  });
  afterAll(() => stack.close());

  it('lets a viewer read the models and context but not enrich (403), hides the dataset from a stranger (404) and needs a login (401)', async () => {
    const body = { enrichment_models: { IMAGE_TAGGING: TAGGER } };
    await stack.request.get(`/api/v1/enrichment/${datasetId}/list_models`).set('Cookie', cookies.bob).expect(200);
    await stack.request.get(`/api/v1/enrichment/${datasetId}/context`).set('Cookie', cookies.bob).expect(200);
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/enrich_dataset`).set('Cookie', cookies.bob).send(body).expect(403)).body).toEqual({
      detail: 'This operation needs editor access to the dataset; you have viewer',
    });
    for (const call of [
      () => stack.request.get(`/api/v1/enrichment/${datasetId}/list_models`),
      () => stack.request.get(`/api/v1/enrichment/${datasetId}/context`),
      () => stack.request.post(`/api/v1/dataset/${datasetId}/enrich_dataset`).send(body),
    ]) {
      expect((await call().set('Cookie', cookies.carol).expect(404)).body).toEqual({ detail: 'Dataset not found' });
      await call().expect(401);
    }
    expect(await stack.deps.db('tasks').count({ n: '*' }).first()).toEqual({ n: '0' });
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).set('Cookie', cookies.alice).expect(200)).body.status_new).toBe('READY');
  });
});

