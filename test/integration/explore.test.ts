import { headVersionId } from '../support/versions';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { newDatasetWithTransaction, uploadFiles, waitForTask } from '../support/datasets';
import { eventually, photo, PHOTO_NAMES } from '../support/media';
import { startTestStack } from '../support/testStack';
import supertest from 'supertest';
import { createApp } from '../../api/app';
import { Workspace } from '../../db/models';
import { createUser } from '../../db/repositories/users';
import { loginCookie } from '../support/sessions';
import { sha256Hex } from '../../lib/sha256';
import { blobKey } from '../../lib/storage/objectStore';
import { forgetFacetCounts } from '../../db/repositories/clusterFacets';

type Stack = Awaited<ReturnType<typeof startTestStack>>;
interface Preview { media_id: string; file_name: string; media_uri: string; media_thumb_uri: string; caption: string | null }
interface Cluster { cluster_id: string; n_images: number; previews: Preview[]; labels: string[] | null; user_tags: Array<{ id: string }> | null; captions: string[] | null }

describe('GET /api/v1/explore/{dataset_id} on a dataset indexed by the real workflow', () => {
  let stack: Stack;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'explore-'));

  const explore = (query: Record<string, string | number>) => stack.request.get(`/api/v1/explore/${datasetId}`).query(query);
  const names = (clusters: Cluster[]) => clusters.flatMap((c) => c.previews.map((p) => p.file_name)).sort();
  const vql = (filters: unknown[]) => JSON.stringify(filters);

  beforeAll(async () => {
    stack = await startTestStack();
    const copy = path.join(scratch, 'chelsea_copy.jpg');
    await sharp(photo('chelsea')).resize(300).jpeg({ quality: 60 }).toFile(copy);
    const dark = path.join(scratch, 'dark_coffee.jpg');
    await sharp(photo('coffee')).modulate({ brightness: 0.12 }).jpeg().toFile(dark);
    const broken = path.join(scratch, 'broken.png');
    fs.writeFileSync(broken, 'not a png');
    const created = await newDatasetWithTransaction(stack, 'explore me');
    datasetId = created.datasetId;
    await uploadFiles(stack, datasetId, created.transId, [...PHOTO_NAMES.map(photo), copy, dark, broken]).expect(202);
    await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${created.transId}`).expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).status).toBe('COMPLETED');
  });
  afterAll(async () => {
    await stack.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('pages the clusters of a threshold, biggest first, with every Cluster and Preview field', async () => {
    const response = await explore({ entity_type: 'IMAGES', threshold: 0 }).expect(200);
    expect(response.body.metadata).toEqual({ used_duckdb: false, hint: null });
    const clusters: Cluster[] = response.body.clusters;
    expect(names(clusters)).toEqual([...PHOTO_NAMES.map((n) => `${n}.jpg`), 'broken.png', 'chelsea_copy.jpg', 'dark_coffee.jpg'].sort());
    expect(clusters[0]).toMatchObject({ type: 'IMAGES', n_images: 2, n_objects: 0, n_videos: 0, similarity_threshold: '0', labels: null, classes: null, user_tags: null, captions: null });
    expect(clusters[0].previews.map((p) => p.file_name).sort()).toEqual(['chelsea.jpg', 'chelsea_copy.jpg']);
    expect(clusters[0].previews[0]).toEqual({
      type: 'IMAGE',
      media_id: expect.any(String),
      media_uri: expect.stringMatching(/^http:\/\/localhost:8080\/api\/v1\/media\/[0-9a-f-]{36}\/file\?expires=\d+&signature=/),
      media_thumb_uri: expect.stringMatching(/\/thumbnail\?expires=\d+&signature=/),
      caption: null,
      file_name: expect.any(String),
      bounding_box: null,
      width: expect.any(Number),
      height: expect.any(Number),
      class: null,
    });
    const loosest = (await explore({ entity_type: 'IMAGES', threshold: 4 }).expect(200)).body.clusters as Cluster[];
    expect(loosest.length).toBeLessThanOrEqual(clusters.length);
    expect((await explore({ entity_type: 'IMAGES', page_number: 1 }).expect(200)).body.clusters).toEqual([]);
    expect((await explore({ entity_type: 'OBJECTS' }).expect(200)).body).toEqual({ clusters: [], metadata: { used_duckdb: false, hint: null } });
  });

  it('says why a text search found nothing in a dataset with no captions and no concept vectors, and only then', async () => {
    const empty = (await explore({ entity_type: 'IMAGES', caption: 'a cat on a sofa' }).expect(200)).body;
    expect(empty).toEqual({ clusters: [], metadata: { used_duckdb: false, hint: expect.stringMatching(/^This dataset has no captions and no concept vectors, which text search reads: enrich a copy/) } });
    const semantic = [{ text: { op: 'semantic', value: 'a cat on a sofa' } }];
    expect((await explore({ entity_type: 'IMAGES', vql: JSON.stringify(semantic) }).expect(200)).body.metadata.hint).toBe(empty.metadata.hint);
    // Not a text search: nothing to explain.
    expect((await explore({ entity_type: 'IMAGES', page_number: 5 }).expect(200)).body).toEqual({ clusters: [], metadata: { used_duckdb: false, hint: null } });
  });

  it('opens a whole cluster a page at a time, and refuses bad paging, an unknown cluster and another dataset\'s (422, 404)', async () => {
    const [biggest] = (await explore({ entity_type: 'IMAGES', threshold: 4 }).expect(200)).body.clusters as Cluster[];
    const members = (query: Record<string, number>, cluster = biggest.cluster_id, dataset = datasetId) =>
      stack.request.get(`/api/v1/dataset/${dataset}/clusters/${cluster}/media`).query(query);
    const all = (await members({ page_size: 500 }).expect(200)).body;
    expect(all).toMatchObject({ cluster_id: biggest.cluster_id, similarity_threshold: '4', n_media: biggest.n_images });
    expect(all.media).toHaveLength(biggest.n_images);
    expect(biggest.previews.every((preview) => all.media.some((media: { media_id: string }) => media.media_id === preview.media_id))).toBe(true);
    const paged = [];
    for (let page = 0; page * 2 < all.n_media; page++) paged.push(...(await members({ page_number: page, page_size: 2 }).expect(200)).body.media);
    expect(paged.map((media: { media_id: string }) => media.media_id)).toEqual(all.media.map((media: { media_id: string }) => media.media_id));
    expect((await members({ page_size: 0 }).expect(422)).body).toEqual({ detail: 'query.page_size: page_size must be a whole number 1-500' });
    expect((await members({ page_number: -1 }).expect(422)).body).toEqual({ detail: 'query.page_number: page_number must be a whole number, 0 or more' });
    await stack.request.get(`/api/v1/dataset/${datasetId}/clusters/not-a-uuid/media`).expect(422);
    expect((await members({}, '00000000-0000-4000-8000-000000000000').expect(404)).body).toEqual({ detail: 'Cluster not found' });
    const other = (await stack.request.get('/api/v1/ingestion/new_dataset').query({ dataset_name: 'no clusters' }).expect(200)).body.dataset_id;
    expect((await members({}, biggest.cluster_id, other).expect(404)).body).toEqual({ detail: 'Cluster not found' });
  });

  it('serves previews through expiring signed links and refuses tampered ones', async () => {
    const [cluster] = (await explore({ entity_type: 'IMAGES' }).expect(200)).body.clusters as Cluster[];
    const file = new URL(cluster.previews[0].media_uri);
    const thumb = new URL(cluster.previews[0].media_thumb_uri);
    const original = await stack.request.get(file.pathname + file.search).expect(200);
    expect(original.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(original.body).metadata()).format).toBe('jpeg');
    const thumbnail = await stack.request.get(thumb.pathname + thumb.search).expect(200);
    expect(thumbnail.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(thumbnail.body).metadata()).format).toBe('jpeg');
    expect((await sharp(thumbnail.body).metadata()).width).toBeLessThanOrEqual(256);
    // A thumbnail made by an earlier version (WebP) is still served as what it is.
    const webp = await sharp(thumbnail.body).webp().toBuffer();
    const webpSha256 = sha256Hex(webp);
    await stack.deps.store.put(blobKey(webpSha256), webp);
    await stack.deps.db('media').where({ id: cluster.previews[0].media_id }).update({ thumb_sha256: webpSha256 });
    const legacy = await stack.request.get(thumb.pathname + thumb.search).expect(200);
    expect(legacy.headers['content-type']).toBe('image/webp');
    expect(Buffer.compare(legacy.body, webp)).toBe(0);
    // One character of the signature changed (to one it is not: a fixed 'X' left 1 signature in 64 intact).
    const tampered = file.search.replace(/signature=(.)/, (_, first: string) => `signature=${first === 'X' ? 'Y' : 'X'}`);
    expect((await stack.request.get(file.pathname + tampered).expect(403)).body).toEqual({ detail: 'This media link is invalid or has expired' });
    const expired = file.search.replace(/expires=\d+/, 'expires=1000');
    await stack.request.get(file.pathname + expired).expect(403);
  });

  it('filters with every VQL key it can evaluate, combined with AND', async () => {
    const issue = (value: string) => vql([{ issues: { op: 'issue', value, mode: 'in' } }]);
    // The Hubble deep field is a genuinely dark photograph.
    expect(names((await explore({ entity_type: 'IMAGES', vql: issue('dark') }).expect(200)).body.clusters)).toEqual(['dark_coffee.jpg', 'hubble_deep_field.jpg']);
    expect(names((await explore({ entity_type: 'IMAGES', vql: issue('broken') }).expect(200)).body.clusters)).toEqual(['broken.png']);
    const duplicates = vql([{ duplicates: { op: 'duplicates', value: 0.9 } }]);
    expect(names((await explore({ entity_type: 'IMAGES', vql: duplicates }).expect(200)).body.clusters)).toEqual(['chelsea.jpg', 'chelsea_copy.jpg']);
    const unique = vql([{ uniqueness: { op: 'uniqueness', value: 0.5 } }]);
    const uniqueNames = names((await explore({ entity_type: 'IMAGES', vql: unique }).expect(200)).body.clusters);
    expect(uniqueNames).toContain('camera.jpg');
    expect(uniqueNames).not.toContain('chelsea_copy.jpg');
    expect(uniqueNames).not.toContain('broken.png');
    const both = vql([{ duplicates: { op: 'duplicates', value: 0.9 } }, { issues: { op: 'issue', value: 'dark', mode: 'in' } }]);
    expect((await explore({ entity_type: 'IMAGES', vql: both }).expect(200)).body.clusters).toEqual([]);
  });

  it('filters duplicates by the head version’s issues only, not by another version’s issue of the same media', async () => {
    const { db } = stack.deps;
    const head = await headVersionId(db, datasetId);
    // The creation snapshot is a version of its own holding the same media ids.
    const camera = await db('media').where({ file_name: 'camera.jpg' }).whereNot({ version_id: head }).first('id', 'version_id');
    expect(camera).toBeDefined();
    await db('media_issues').insert({ version_id: camera.version_id, media_id: camera.id, issue_type: 'duplicates', confidence: 1, details: JSON.stringify({ similarity: 0.99 }) });
    try {
      const duplicates = vql([{ duplicates: { op: 'duplicates', value: 0.9 } }]);
      expect(names((await explore({ entity_type: 'IMAGES', vql: duplicates }).expect(200)).body.clusters)).toEqual(['chelsea.jpg', 'chelsea_copy.jpg']);
    } finally {
      await db('media_issues').where({ version_id: camera.version_id, media_id: camera.id, issue_type: 'duplicates' }).delete();
    }
  });

  it('filters by labels, tags, caption full text (VQL fts) and shows them on clusters', async () => {
    const { db } = stack.deps;
    const media = await db('media').where({ version_id: await headVersionId(db, datasetId) });
    const id = (name: string) => media.find((m) => m.file_name === name)!.id;
    await db('media').where({ id: id('chelsea.jpg') }).update({ caption: 'A tabby cat resting on a red sofa' });
    await db('media').where({ id: id('coffee.jpg') }).update({ caption: 'A cup of espresso on a saucer' });
    const versionId = await headVersionId(db, datasetId);
    // Written as label writers do, forgetting the per-cluster counts a label's page reads.
    await db('media_labels').insert([
      { media_id: id('chelsea.jpg'), version_id: versionId, label: 'cat', source: 'test' },
      { media_id: id('rocket.jpg'), version_id: versionId, label: 'rocket', source: 'test' },
    ]);
    await forgetFacetCounts(db, versionId, ['label']);
    // Tagged through the API, whose writes keep the per-cluster tag counts a tags page reads.
    const tag = (await stack.request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: 'favourite' }).expect(201)).body as { id: string };
    await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ media_ids: [id('camera.jpg')] }).expect(200);

    const byLabel = (await explore({ entity_type: 'IMAGES', labels: '["cat","dog"]' }).expect(200)).body.clusters as Cluster[];
    expect(names(byLabel)).toEqual(['chelsea.jpg']);
    expect(byLabel[0].labels).toEqual(['cat']);
    const byVqlLabel = (await explore({ entity_type: 'IMAGES', vql: vql([{ labels: { op: 'one_of', value: ['rocket'] } }]) }).expect(200)).body;
    expect(names(byVqlLabel.clusters)).toEqual(['rocket.jpg']);
    const byTag = (await explore({ entity_type: 'IMAGES', tags: JSON.stringify([tag.id]) }).expect(200)).body.clusters as Cluster[];
    expect(names(byTag)).toEqual(['camera.jpg']);
    expect(byTag[0].user_tags).toEqual([{ id: tag.id, name: 'favourite' }]);
    expect(names((await explore({ entity_type: 'IMAGES', vql: vql([{ tags: { op: 'is', value: [tag.id] } }]) }).expect(200)).body.clusters)).toEqual(['camera.jpg']);

    const byCaption = (await explore({ entity_type: 'IMAGES', vql: vql([{ text: { op: 'fts', value: 'cats on sofas' } }]) }).expect(200)).body.clusters as Cluster[];
    expect(names(byCaption)).toEqual(['chelsea.jpg']);
    expect(byCaption[0].captions).toEqual(['A tabby cat resting on a red sofa']);
    const fts = vql([{ text: { op: 'fts', value: 'espresso cup' } }]);
    expect(names((await explore({ entity_type: 'IMAGES', vql: fts }).expect(200)).body.clusters)).toEqual(['coffee.jpg']);
  });

  it("describes one media item (file, size, caption, labels, tags, issues), refusing a malformed id (422), another dataset's or an unknown item (404) and a colleague without a role (403)", async () => {
    const { db } = stack.deps;
    const versionId = await headVersionId(db, datasetId);
    const media = await db('media').where({ version_id: versionId });
    const id = (name: string) => media.find((m) => m.file_name === name)!.id;
    const facts = (mediaId: string, dataset = datasetId) => stack.request.get(`/api/v1/dataset/${dataset}/media/${mediaId}`);
    const chelsea = (await facts(id('chelsea.jpg')).expect(200)).body;
    expect(chelsea).toEqual({
      media_id: id('chelsea.jpg'),
      kind: 'IMAGE',
      file_name: 'chelsea.jpg',
      size_bytes: fs.statSync(photo('chelsea')).size,
      width: 384,
      height: 255,
      caption: 'A tabby cat resting on a red sofa',
      labels: ['cat'],
      class: null,
      tags: [],
      issues: (await db('media_issues').where({ version_id: versionId, media_id: id('chelsea.jpg') }).pluck('issue_type')).sort(),
      mislabel: null,
      leakage: null,
    });
    expect(chelsea.issues).toContain('duplicates');
    expect((await facts(id('camera.jpg')).expect(200)).body).toMatchObject({ tags: [{ id: expect.any(String), name: 'favourite' }], labels: [] });
    expect((await facts(id('dark_coffee.jpg')).expect(200)).body.issues).toContain('dark');

    expect((await facts('not-a-uuid').expect(422)).body).toEqual({ detail: 'params.media_id: media_id must be a UUID' });
    expect((await facts('00000000-0000-4000-8000-000000000000').expect(404)).body).toEqual({ detail: 'Media not found' });
    const other = (await stack.request.get('/api/v1/ingestion/new_dataset').query({ dataset_name: 'no media' }).expect(200)).body.dataset_id;
    expect((await facts(id('chelsea.jpg'), other).expect(404)).body).toEqual({ detail: 'Media not found' });

    const workspaceId = (await Workspace.query(db).first())!.id;
    await createUser(db, { email: 'facts-colleague@example.com', password: 'facts-colleague-1', workspaceId, workspaceRole: 'viewer' });
    const secured = { request: supertest(createApp({ ...stack.deps, config: { ...stack.deps.config, disableAuth: false } }).callback()) };
    const cookie = await loginCookie(secured, 'facts-colleague@example.com', 'facts-colleague-1');
    expect((await secured.request.get(`/api/v1/dataset/${datasetId}/media/${id('chelsea.jpg')}`).set('Cookie', cookie).expect(403)).body).toEqual({
      detail: 'You do not have permission to access this dataset',
    });
  });

  it('ranks clusters by cosine distance to an existing media item (anchor_type MEDIA)', async () => {
    const chelsea = (await stack.deps.db('media').where({ version_id: await headVersionId(stack.deps.db, datasetId), file_name: 'chelsea.jpg' }).first()).id;
    const clusters = (await explore({ entity_type: 'IMAGES', anchor_media_id: chelsea, anchor_type: 'MEDIA' }).expect(200)).body
      .clusters as Array<Cluster & { relevance_score: number; relevance_score_type: string; previews: Array<Preview & { relevance_score: number }> }>;
    expect(clusters[0].previews.map((p) => p.file_name)).toEqual(['chelsea.jpg', 'chelsea_copy.jpg']);
    expect(clusters[0].relevance_score).toBeLessThan(0.01);
    expect(clusters[0].relevance_score_type).toBe('cosine_distance');
    expect(clusters[0].previews[0].relevance_score).toBeLessThan(0.01);
    const scores = clusters.map((c) => c.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    // Broken media have no embedding, so they never show up in a visual search.
    expect(names(clusters)).not.toContain('broken.png');
  });

  it('embeds an uploaded query image, cropped to its bounding box, and searches with it (anchor_type UPLOAD)', async () => {
    const upload = (query: Record<string, string>, file?: string) => {
      const request = stack.request.post(`/api/v1/dataset/${datasetId}/search-image-similarity`).query(query);
      return file ? request.attach('file', file) : request.field('nothing', 'here');
    };
    const same = (await upload({ entity_type: 'IMAGES', threshold: '0' }, photo('coffee')).expect(200)).body;
    expect(same).toEqual({ anchor_media_id: expect.any(String), anchor_type: 'UPLOAD' });
    const [nearest] = (await explore({ entity_type: 'IMAGES', anchor_media_id: same.anchor_media_id, anchor_type: 'UPLOAD' }).expect(200)).body.clusters;
    expect(nearest.previews[0].file_name).toBe('coffee.jpg');
    expect(nearest.previews[0].relevance_score).toBeLessThan(0.01);
    // The spec: Explore's threshold must match the one given at the anchor's upload.
    const anchor = { entity_type: 'IMAGES', anchor_media_id: same.anchor_media_id, anchor_type: 'UPLOAD' };
    expect((await explore({ ...anchor, threshold: '2' }).expect(422)).body).toEqual({ detail: "threshold must match the one given at the anchor's upload (0; this search has 2)" });
    const atTwo = (await upload({ entity_type: 'IMAGES', threshold: '2' }, photo('coffee')).expect(200)).body.anchor_media_id;
    const [nearestAtTwo] = (await explore({ ...anchor, anchor_media_id: atTwo, threshold: '2' }).expect(200)).body.clusters;
    expect(nearestAtTwo).toMatchObject({ similarity_threshold: '2' });
    expect(nearestAtTwo.previews.map((preview: { file_name: string }) => preview.file_name)).toContain('coffee.jpg');
    await explore({ ...anchor, anchor_media_id: atTwo }).expect(422);

    // Rocket on the left, camera on the right: the box picks the camera.
    const left = await sharp(photo('rocket')).resize(384, 256, { fit: 'fill' }).toBuffer();
    const right = await sharp(photo('camera')).resize(384, 256, { fit: 'fill' }).toBuffer();
    const pair = path.join(scratch, 'pair.png');
    await sharp({ create: { width: 768, height: 256, channels: 3, background: '#000' } })
      .composite([{ input: left, left: 0, top: 0 }, { input: right, left: 384, top: 0 }])
      .png()
      .toFile(pair);
    const box = JSON.stringify({ x: 0.5, y: 0, width: 0.5, height: 1 });
    const cropped = (await upload({ entity_type: 'IMAGES', bounding_box: box }, pair).expect(200)).body;
    const [best] = (await explore({ entity_type: 'IMAGES', anchor_media_id: cropped.anchor_media_id, anchor_type: 'UPLOAD' }).expect(200)).body.clusters;
    expect(best.previews[0].file_name).toBe('camera.jpg');

    expect((await upload({ entity_type: 'IMAGES' }).expect(400)).body.detail).toBe('file is required: send the query image as the multipart field "file"');
    expect((await upload({}, photo('coffee')).expect(400)).body.detail).toBe('entity_type is required (IMAGES or OBJECTS)');
    expect((await upload({ entity_type: 'IMAGES', bounding_box: '{"x":0.8,"y":0,"width":0.5,"height":1}' }, photo('coffee')).expect(422)).body.detail)
      .toBe('query.bounding_box: the box must lie inside the image');
    await upload({ entity_type: 'IMAGES', bounding_box: 'left half' }, photo('coffee')).expect(422);
    const text = path.join(scratch, 'query.txt');
    fs.writeFileSync(text, 'not an image');
    await upload({ entity_type: 'IMAGES' }, text).expect(400);
    const fake = path.join(scratch, 'fake.jpg');
    fs.writeFileSync(fake, 'not an image either');
    expect((await upload({ entity_type: 'IMAGES' }, fake).expect(400)).body.detail).toMatch(/^The uploaded file is not a readable image/);
    await explore({ entity_type: 'IMAGES', anchor_media_id: '6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11', anchor_type: 'UPLOAD' }).expect(404);
    await explore({ entity_type: 'IMAGES', anchor_media_id: '6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11', anchor_type: 'MEDIA' }).expect(404);
    expect((await explore({ entity_type: 'IMAGES', anchor_type: 'MEDIA' }).expect(422)).body.detail).toBe('anchor_media_id and anchor_type go together');
    const { datasetId: pending } = await newDatasetWithTransaction(stack, 'no index yet');
    await stack.request.post(`/api/v1/dataset/${pending}/search-image-similarity`).query({ entity_type: 'IMAGES' }).attach('file', photo('coffee')).expect(409);
  });

  it('creates, lists and deletes tags, tags media by ids, a whole cluster or both, and Explore filters by them', async () => {
    const tags = `/api/v1/dataset/${datasetId}/tags`;
    const created = (await stack.request.post(tags).send({ name: 'keepers' }).expect(201)).body;
    expect(created).toEqual({ id: expect.any(String), name: 'keepers', created_at: expect.stringMatching(/Z$/), n_media: 0 });
    expect((await stack.request.post(tags).send({ name: 'keepers' }).expect(409)).body.detail).toBe('A tag named "keepers" already exists in this dataset');
    await stack.request.post(tags).send({ name: '  ' }).expect(422);

    const [pair] = (await explore({ entity_type: 'IMAGES' }).expect(200)).body.clusters as Cluster[];
    const rocket = (await stack.deps.db('media').where({ version_id: await headVersionId(stack.deps.db, datasetId), file_name: 'rocket.jpg' }).first()).id;
    expect((await stack.request.post(`${tags}/${created.id}/media`).send({ cluster_id: pair.cluster_id }).expect(200)).body).toEqual({ tagged: 2 });
    expect((await stack.request.post(`${tags}/${created.id}/media`).send({ media_ids: [rocket, pair.previews[0].media_id] }).expect(200)).body).toEqual({ tagged: 1 });
    // Both at once is their union: all of it is tagged already.
    expect((await stack.request.post(`${tags}/${created.id}/media`).send({ media_ids: [rocket], cluster_id: pair.cluster_id }).expect(200)).body).toEqual({ tagged: 0 });
    await stack.request.post(`${tags}/${created.id}/media`).send({}).expect(422);
    expect((await stack.request.get(tags).expect(200)).body.tags.find((t: { id: string }) => t.id === created.id).n_media).toBe(3);

    const tagged = (await explore({ entity_type: 'IMAGES', tags: JSON.stringify([created.id]) }).expect(200)).body.clusters as Cluster[];
    expect(names(tagged)).toEqual(['chelsea.jpg', 'chelsea_copy.jpg', 'rocket.jpg']);
    expect(tagged[0].user_tags).toEqual([{ id: created.id, name: 'keepers' }]);

    expect((await stack.request.delete(`${tags}/${created.id}/media`).send({ media_ids: [rocket] }).expect(200)).body).toEqual({ untagged: 1 });
    expect(names((await explore({ entity_type: 'IMAGES', tags: JSON.stringify([created.id]) }).expect(200)).body.clusters)).toEqual(['chelsea.jpg', 'chelsea_copy.jpg']);
    await stack.request.delete(`${tags}/${created.id}`).expect(200);
    await stack.request.delete(`${tags}/${created.id}`).expect(404);
    await stack.request.post(`${tags}/${created.id}/media`).send({ media_ids: [rocket] }).expect(404);
    expect((await explore({ entity_type: 'IMAGES', tags: JSON.stringify([created.id]) }).expect(200)).body.clusters).toEqual([]);
  });

  it('imports captions, labels and fields from JSON, CSV and Parquet in CUSTOM_METADATA tasks, reporting unknown names', async () => {
    const { db } = stack.deps;
    const coffee = (await db('media').where({ version_id: await headVersionId(db, datasetId), file_name: 'coffee.jpg' }).first()).id;
    const importFile = async (file: string) => {
      const { task_id: taskId } = (await stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).attach('file', file).expect(202)).body;
      return eventually(
        async () => (await stack.request.get('/api/v1/tasks').query({ dataset_id: datasetId, task_type: 'CUSTOM_METADATA' }).expect(200)).body.tasks
          .find((t: { task_id: string }) => t.task_id === taskId),
        (task) => ['COMPLETED', 'FAILED'].includes(task?.status),
        60_000,
      );
    };

    const json = path.join(scratch, 'meta.json');
    fs.writeFileSync(json, JSON.stringify([
      { file_name: 'rocket.jpg', caption: 'A rocket on the launch pad', labels: ['rocket', 'sky'], photographer: 'NASA' },
      { media_id: coffee, caption: 'Fresh espresso in a white cup' },
      { file_name: 'missing.jpg', caption: 'nobody' },
    ]));
    const jsonTask = await importFile(json);
    expect(jsonTask).toMatchObject({ task_type: 'CUSTOM_METADATA', status: 'COMPLETED', progress_percentage: 100 });
    expect(jsonTask.status_message).toBe('Imported metadata for 2 media; 1 unknown: missing.jpg');
    expect(names((await explore({ entity_type: 'IMAGES', vql: vql([{ text: { op: 'fts', value: 'launch pad' } }]) }).expect(200)).body.clusters)).toEqual(['rocket.jpg']);
    expect(names((await explore({ entity_type: 'IMAGES', labels: '["sky"]' }).expect(200)).body.clusters)).toEqual(['rocket.jpg']);
    expect((await db('media').where({ version_id: await headVersionId(db, datasetId), file_name: 'rocket.jpg' }).first()).custom_metadata).toEqual({ photographer: 'NASA' });

    const csv = path.join(scratch, 'meta.csv');
    fs.writeFileSync(csv, 'file_name,caption,labels,iso\ncamera.jpg,A photographer behind a camera on a tripod,person|tripod,200\n');
    expect((await importFile(csv)).status).toBe('COMPLETED');
    expect(names((await explore({ entity_type: 'IMAGES', vql: vql([{ text: { op: 'fts', value: 'tripod' } }]) }).expect(200)).body.clusters)).toEqual(['camera.jpg']);
    expect(names((await explore({ entity_type: 'IMAGES', vql: vql([{ labels: { op: 'one_of', value: ['person'] } }]) }).expect(200)).body.clusters)).toEqual(['camera.jpg']);

    const { parquetWriteBuffer } = await import('hyparquet-writer');
    const parquet = path.join(scratch, 'meta.parquet');
    fs.writeFileSync(parquet, Buffer.from(parquetWriteBuffer({
      columnData: [
        { name: 'file_name', data: ['astronaut.jpg', 'nope.jpg'] },
        { name: 'caption', data: ['An astronaut in a white space suit', 'x'] },
        { name: 'labels', data: ['astronaut;person', ''] },
      ],
    })));
    const parquetTask = await importFile(parquet);
    expect(parquetTask.status_message).toBe('Imported metadata for 1 media; 1 unknown: nope.jpg');
    expect(names((await explore({ entity_type: 'IMAGES', vql: vql([{ text: { op: 'fts', value: 'space suit' } }]) }).expect(200)).body.clusters)).toEqual(['astronaut.jpg']);

    const broken = path.join(scratch, 'broken.json');
    fs.writeFileSync(broken, '{"file_name": ');
    expect(await importFile(broken)).toMatchObject({ status: 'FAILED', error_message: expect.stringMatching(/^cannot read the json file/) });
    const txt = path.join(scratch, 'meta.txt');
    fs.writeFileSync(txt, 'file_name');
    await stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).attach('file', txt).expect(400);
    await stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).field('x', 'y').expect(400);
    expect((await stack.request.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new).toBe('READY');
  });

  it('searches captions semantically (caption, image_caption, VQL text semantic) with cosine distances and thresholds', async () => {
    // Captions come from the metadata imports above (and chelsea's, embedded by the same task).
    const semantic = (value: string, threshold?: number) => vql([{ text: { op: 'semantic', value, ...(threshold === undefined ? {} : { threshold }) } }]);
    const ranked = (await explore({ entity_type: 'IMAGES', vql: semantic('a kitten sleeping on a couch') }).expect(200)).body
      .clusters as Array<Cluster & { relevance_score: number; relevance_score_type: string }>;
    expect(ranked[0].previews[0].file_name).toBe('chelsea.jpg');
    expect(ranked[0].relevance_score_type).toBe('cosine_distance');
    const scores = ranked.map((c) => c.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    expect(names(ranked)).toEqual(expect.arrayContaining(['coffee.jpg', 'rocket.jpg']));

    const close = (await explore({ entity_type: 'IMAGES', vql: semantic('spacecraft launch', 0.6) }).expect(200)).body.clusters as Cluster[];
    expect(names(close)).toContain('rocket.jpg');
    expect(names(close)).not.toContain('coffee.jpg');
    const viaParameter = (await explore({ entity_type: 'IMAGES', vql: semantic('spacecraft launch'), textual_similarity_threshold: 0.6 }).expect(200)).body;
    expect(names(viaParameter.clusters)).toEqual(names(close));

    // The caption parameter (and its deprecated alias) is the same natural-language search.
    const byCaption = (await explore({ entity_type: 'IMAGES', caption: 'a kitten sleeping on a couch' }).expect(200)).body.clusters as Cluster[];
    expect(byCaption[0].previews[0].file_name).toBe('chelsea.jpg');
    expect(names((await explore({ entity_type: 'IMAGES', image_caption: 'spacecraft launch', textual_similarity_threshold: 0.6 }).expect(200)).body.clusters))
      .toEqual(names(close));
    // Media without a caption never match a caption search.
    expect(names(byCaption)).not.toContain('grace_hopper.jpg');

    const chelsea = (await stack.deps.db('media').where({ version_id: await headVersionId(stack.deps.db, datasetId), file_name: 'chelsea.jpg' }).first()).id;
    expect((await explore({ entity_type: 'IMAGES', vql: semantic('cat'), anchor_media_id: chelsea, anchor_type: 'MEDIA' }).expect(422)).body.detail)
      .toBe('Use at most one ranking: a visual anchor, caption, or one semantic text filter');
    await explore({ entity_type: 'IMAGES', caption: 'cat', vql: semantic('dog') }).expect(422);
  });

  it('refuses bad parameters with 400/422 {detail} and a dataset that is not ready with 409', async () => {
    expect((await explore({}).expect(400)).body).toEqual({ detail: 'entity_type is required (IMAGES or OBJECTS)' });
    expect((await explore({ entity_type: 'PEOPLE' }).expect(422)).body.detail).toBe('query.entity_type: entity_type must be IMAGES or OBJECTS');
    expect((await explore({ entity_type: 'IMAGES', threshold: 5 }).expect(422)).body.detail).toBe('query.threshold: threshold must be an integer 0-4');
    await explore({ entity_type: 'IMAGES', page_number: -1 }).expect(422);
    expect((await explore({ entity_type: 'IMAGES', labels: 'cat' }).expect(422)).body.detail).toBe('query.labels: labels must be a JSON array');
    await explore({ entity_type: 'IMAGES', tags: '["not-a-uuid"]' }).expect(422);
    expect((await explore({ entity_type: 'IMAGES', vql: '[{"issues":{"op":"issue","value":"smudge"}}]' }).expect(422)).body.detail).toBe(
      'vql[0].issues.value: value must be one of duplicates, similar, outliers, blur, dark, bright, broken, mislabel, leakage',
    );
    await explore({ entity_type: 'IMAGES', textual_similarity_threshold: 2 }).expect(422);
    await stack.request.get('/api/v1/explore/not-a-uuid').query({ entity_type: 'IMAGES' }).expect(422);
    await stack.request.get('/api/v1/explore/6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11').query({ entity_type: 'IMAGES' }).expect(404);

    const { datasetId: pending } = await newDatasetWithTransaction(stack, 'not yet');
    expect((await stack.request.get(`/api/v1/explore/${pending}`).query({ entity_type: 'IMAGES' }).expect(409)).body).toEqual({
      detail: 'Dataset is not READY (status UPLOADING)',
    });
  });
});
