import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { Workspace } from '../../db/models';
import { createDataset } from '../../db/repositories/datasets';
import { createUser } from '../../db/repositories/users';
import { createReadyDataset, waitForDatasetStatus } from '../support/datasets';
import { databaseFingerprint } from '../support/databaseFingerprint';
import { insidePolygon, lowerLeftTriangle, mapMatches, mapPage } from '../support/map';
import { eventually, photo, PHOTO_NAMES } from '../support/media';
import { datasetSharedWithViewer, loginCookie } from '../support/sessions';
import { startTestApi, startTestStack } from '../support/testStack';

interface DatasetMap {
  layout_id: string | null;
  count: number;
  unplaced: number;
  bounds: { min_x: number; max_x: number; min_y: number; max_y: number } | null;
  threshold: number;
  page_limit: number;
  legends: { cluster: Array<{ index: number; cluster_id: string; count: number }>; label: Array<{ index: number; label: string; count: number }>; issue: Array<{ index: number; issue_type: string; count: number }> };
}

/** The map through the real API and worker: laid out at indexing, served in binary pages, kept by snapshots, clones and added batches. */
describe('dataset map', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let datasetId: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'map-'));
  // Three copies of each photo (enough images for UMAP): a copy should land near its siblings.
  const copies = PHOTO_NAMES.flatMap((name) => [260, 200].map((width) => path.join(scratch, `${name}_${width}.jpg`)));

  beforeAll(async () => {
    for (const file of copies) {
      const [, name, width] = /^(.*)_(\d+)\.jpg$/.exec(path.basename(file))!;
      await sharp(photo(name)).resize(Number(width)).jpeg({ quality: 80 }).toFile(file);
    }
    stack = await startTestStack();
    datasetId = await createReadyDataset(stack, 'mapped', [...PHOTO_NAMES.map(photo), ...copies]);
  }, 240_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const base = (id = datasetId) => `/api/v1/dataset/${id}/map`;
  const map = async (id = datasetId, query: Record<string, string | number> = {}) => (await stack.request.get(base(id)).query(query).expect(200)).body as DatasetMap;
  const points = (id = datasetId, query: Record<string, string | number> = {}) => mapPage(stack.request.get(`${base(id)}/points`).query(query));
  const fileNames = async (ids: string[]) => {
    const rows: Array<{ id: string; file_name: string }> = await stack.deps.db('media').distinct('id', 'file_name').whereIn('id', ids);
    const byId = new Map(rows.map((row) => [row.id, row.file_name]));
    return ids.map((id) => byId.get(id)!);
  };

  it('gives every image a finite point, near its own copies, coloured by its cluster', async () => {
    const summary = await map(datasetId, { threshold: 2 });
    const n = PHOTO_NAMES.length * 3;
    expect(summary).toMatchObject({ count: n, unplaced: 0, threshold: 2, layout_id: expect.any(String) });
    const page = await points(datasetId, { threshold: 2 });
    expect(page.layoutId).toBe(summary.layout_id);
    expect(page.x).toHaveLength(n);
    for (let i = 0; i < n; i++) {
      expect(Number.isFinite(page.x[i]) && Number.isFinite(page.y[i])).toBe(true);
      expect(page.x[i]).toBeGreaterThanOrEqual(summary.bounds!.min_x);
      expect(page.y[i]).toBeLessThanOrEqual(summary.bounds!.max_y);
    }
    // Each legend cluster's colour is carried by exactly its members.
    for (const entry of summary.legends.cluster) expect(page.cluster.filter((colour) => colour === entry.index)).toHaveLength(entry.count);
    expect(page.cluster.filter((colour) => colour === 0)).toHaveLength(n - summary.legends.cluster.reduce((sum, entry) => sum + entry.count, 0));

    const ids = (await stack.request.post(`${base()}/selection`).send({ layout_id: summary.layout_id, indices: [...Array(n).keys()] }).expect(200)).body.media_ids as string[];
    const names = await fileNames(ids);
    expect(new Set(names).size).toBe(n);
    const photoOf = (i: number) => names[i].replace(/(_\d+)?\.jpg$/, '');
    const distance = (a: number, b: number) => Math.hypot(page.x[a] - page.x[b], page.y[a] - page.y[b]);
    const pairs = [...Array(n).keys()].flatMap((a) => [...Array(n).keys()].filter((b) => b > a).map((b) => ({ same: photoOf(a) === photoOf(b), d: distance(a, b) })));
    const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
    expect(mean(pairs.filter((p) => p.same).map((p) => p.d))).toBeLessThan(mean(pairs.filter((p) => !p.same).map((p) => p.d)) / 3);

    // A page is revalidated by its ETag: 304 and no points while nothing changed; another threshold is another page.
    const pointsUrl = `${base()}/points`;
    const etag = (await stack.request.get(pointsUrl).query({ threshold: 2 }).expect(200)).headers.etag as string;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const revalidated = await stack.request.get(pointsUrl).query({ threshold: 2 }).set('If-None-Match', etag).expect(304);
    expect(revalidated.headers['x-map-total']).toBe(String(n));
    expect((await stack.request.get(pointsUrl).query({ threshold: 1 }).set('If-None-Match', etag).expect(200)).headers.etag).not.toBe(etag);

    // Pages put together are the whole map.
    const first = await points(datasetId, { threshold: 2, offset: 0, limit: 10 });
    const rest = await points(datasetId, { threshold: 2, offset: 10, limit: 1000 });
    expect([...first.x, ...rest.x]).toEqual([...page.x]);
    expect([...first.y, ...rest.y]).toEqual([...page.y]);
    for (const column of ['cluster', 'label', 'issue'] as const) expect([...first[column], ...rest[column]]).toEqual([...page[column]]);
  });

  it('keeps the map in a snapshot\'s clone and keeps every point\'s index when a batch is added', async () => {
    const before = await map();
    const whole = await points();
    const staleTag = (await stack.request.get(`${base()}/points`).expect(200)).headers.etag as string;
    const [current] = ((await stack.request.get(`/api/v1/dataset/${datasetId}/snapshot`).expect(200)).body as Array<{ snapshot_id: string; is_current: boolean }>).filter((s) => s.is_current);
    await stack.request.post(`/api/v1/dataset/${datasetId}/snapshot/${current.snapshot_id}/clone`).expect(202);
    const task = await eventually(
      async () => (await stack.request.get('/api/v1/tasks').query({ task_type: 'SNAPSHOT_CLONE' }).expect(200)).body.tasks[0],
      (t) => t?.status === 'COMPLETED' || t?.status === 'FAILED',
      120_000,
      'the clone task',
    );
    expect(task.status).toBe('COMPLETED');
    expect(await map(task.dataset_id)).toEqual(before);
    expect(await points(task.dataset_id)).toEqual(whole);

    const added = path.join(scratch, 'chelsea_230.jpg');
    await sharp(photo('chelsea')).resize(230).jpeg().toFile(added);
    await stack.request.post(`/api/v1/dataset/${datasetId}/add_media`).attach('files', added).expect(202);
    await waitForDatasetStatus(stack, datasetId, ['PARTIAL INDEX']);
    const after = await map();
    expect(after).toMatchObject({ layout_id: before.layout_id, count: before.count + 1, unplaced: 0 });
    expect((await stack.request.get(`${base()}/points`).set('If-None-Match', staleTag).expect(200)).headers.etag).not.toBe(staleTag);
    const grown = await points();
    expect([...grown.x.subarray(0, before.count)]).toEqual([...whole.x]);
    const [newId] = (await stack.request.post(`${base()}/selection`).send({ layout_id: after.layout_id, indices: [before.count] }).expect(200)).body.media_ids;
    expect(await fileNames([newId])).toEqual(['chelsea_230.jpg']);
    // The added copy lands beside its siblings, not at the centre of all its neighbours.
    const others = [...Array(before.count).keys()];
    const nearestThree = others.sort((a, b) => Math.hypot(grown.x[a] - grown.x[before.count], grown.y[a] - grown.y[before.count]) - Math.hypot(grown.x[b] - grown.x[before.count], grown.y[b] - grown.y[before.count])).slice(0, 3);
    const nearestIds = (await stack.request.post(`${base()}/selection`).send({ layout_id: after.layout_id, indices: nearestThree }).expect(200)).body.media_ids as string[];
    expect((await fileNames(nearestIds)).map((name) => name.replace(/(_\d+)?\.jpg$/, ''))).toEqual(['chelsea', 'chelsea', 'chelsea']);
  }, 240_000);

  it('selects by a map region (VQL map within a polygon) in Explore and for tags: exactly the points inside, as a brute-force check finds', async () => {
    const summary = await map();
    const page = await points();
    const ids = (await stack.request.post(`${base()}/selection`).send({ layout_id: summary.layout_id, indices: [...Array(summary.count).keys()] }).expect(200)).body.media_ids as string[];
    const polygon = lowerLeftTriangle(page);
    const inside = ids.filter((_, i) => insidePolygon(page.x[i], page.y[i], polygon));
    expect(inside.length).toBeGreaterThan(0);
    expect(inside.length).toBeLessThan(summary.count);
    const region = JSON.stringify([{ map: { op: 'within', layout_id: summary.layout_id, polygon } }]);

    const clusters = (await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', threshold: 0, vql: region }).expect(200)).body.clusters as Array<{ n_images: number; previews: Array<{ media_id: string }> }>;
    expect(clusters.reduce((sum, cluster) => sum + cluster.n_images, 0)).toBe(inside.length);
    expect(clusters.flatMap((cluster) => cluster.previews.map((preview) => preview.media_id)).sort()).toEqual([...inside].sort());

    const tag = (await stack.request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: 'lassoed' }).expect(201)).body as { id: string };
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ vql: region }).expect(200)).body).toEqual({ tagged: inside.length });
    expect((await stack.deps.db('media_tags').where({ tag_id: tag.id }).pluck('media_id')).sort()).toEqual([...inside].sort());

    // A map region of another layout (the map was laid out anew by a reindex) is refused, not read against the new layout.
    const stale = JSON.stringify([{ map: { op: 'within', layout_id: randomUUID(), polygon } }]);
    const detail = 'vql: map region: The map was laid out anew since it was loaded; load it again, then lasso again';
    const before = await databaseFingerprint(stack.deps.db);
    expect((await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', vql: stale }).expect(409)).body).toEqual({ detail });
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ vql: stale }).expect(409)).body).toEqual({ detail });
    const form = (vql: string) => stack.request.post(`/api/v1/dataset/${datasetId}/views`).query({ entity_type: 'IMAGES', vql }).field('name', 'lasso');
    expect((await form(stale).expect(409)).body).toEqual({ detail });
    const bad: Array<[unknown, string]> = [
      [{ op: 'within', layout_id: summary.layout_id, polygon: polygon.slice(0, 2) }, 'vql[0].map.polygon: polygon must have at least 3 vertices'],
      [{ op: 'within', layout_id: summary.layout_id, polygon: [[0, 0], [1, 0], [0, '1']] }, 'vql[0].map.polygon.2.1: each coordinate must be a finite number'],
    ];
    for (const [element, message] of bad) {
      const vql = JSON.stringify([{ map: element }]);
      expect((await stack.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', vql }).expect(422)).body).toEqual({ detail: message });
      expect((await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ vql }).expect(422)).body).toEqual({ detail: `body.vql: ${message}` });
    }
    // Only a body holds a thousand vertices (a URL stops at Node's 16 KB of headers, 431).
    const huge = JSON.stringify([{ map: { op: 'within', layout_id: summary.layout_id, polygon: Array.from({ length: 1001 }, (_, i) => [Math.cos(i), Math.sin(i)]) } }]);
    expect((await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ vql: huge }).expect(422)).body).toEqual({
      detail: 'body.vql: vql[0].map.polygon: polygon must have at most 1000 vertices',
    });
    expect(await databaseFingerprint(stack.deps.db)).toEqual(before);

    // Saved in a view, the region is kept as given.
    const view = (await form(region).expect(200)).body as { filters: { vql: unknown[] } };
    expect(view.filters.vql).toEqual(JSON.parse(region));
  });

  it("marks the points Explore's filters keep (GET …/map/matches), exactly those whose media Explore finds", async () => {
    const summary = await map();
    const ids = (await stack.request.post(`${base()}/selection`).send({ layout_id: summary.layout_id, indices: [...Array(summary.count).keys()] }).expect(200)).body.media_ids as string[];
    const tag = (await stack.request.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: 'picked on the map' }).expect(201)).body as { id: string };
    const picked = [1, 4, 5];
    await stack.request.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ media_ids: picked.map((i) => ids[i]) }).expect(200);
    const matches = (vql: unknown[]) => stack.request.get(`${base()}/matches`).query({ vql: JSON.stringify(vql) });

    const tagged = await mapMatches(matches([{ tags: { op: 'is', value: [tag.id] } }]));
    expect(tagged).toEqual({ layoutId: summary.layout_id, matched: picked.length, indices: picked });
    // With a second filter both must hold; an empty list keeps every point.
    const uniqueness = 0.5;
    const unique = new Set((await stack.deps.db('media').whereIn('id', ids).where('uniqueness_score', '>=', uniqueness).pluck('id')) as string[]);
    const both = await mapMatches(matches([{ tags: { op: 'is', value: [tag.id] } }, { uniqueness: { op: 'uniqueness', value: uniqueness } }]));
    expect(both.indices).toEqual(picked.filter((i) => unique.has(ids[i])));
    expect((await mapMatches(matches([]))).indices).toEqual([...Array(summary.count).keys()]);

    expect((await matches([{ tags: { op: 'is', value: ['nope'] } }]).expect(422)).body.detail).toMatch(/^query\.vql: /);
    expect((await matches([{ text: { op: 'semantic', value: 'a cat' } }]).expect(422)).body.detail).toMatch(/semantic text filter ranks media/);
    const stale = [{ map: { op: 'within', layout_id: randomUUID(), polygon: [[0, 0], [1, 0], [0, 1]] } }];
    expect((await matches(stale).expect(409)).body.detail).toMatch(/^vql: map region: The map was laid out anew/);
    await stack.request.get(`/api/v1/dataset/${randomUUID()}/map/matches`).query({ vql: '[]' }).expect(404);
  });

  it('refuses bad input with 422 {detail}, a stale layout with 409 and an unknown dataset with 404', async () => {
    const { layout_id: layoutId, count } = await map();
    const queries: Array<[string, Record<string, string>, string]> = [
      ['', { threshold: '5' }, 'query.threshold: threshold must be an integer 0-4'],
      ['/points', { threshold: 'x' }, 'query.threshold: threshold must be an integer 0-4'],
      ['/points', { offset: '-1' }, 'query.offset: offset must be a whole number, 0 or more'],
      ['/points', { limit: '0' }, 'query.limit: limit must be a whole number 1-1,000,000'],
      ['/points', { limit: '1000001' }, 'query.limit: limit must be a whole number 1-1,000,000'],
      ['/points', { limit: '2.5' }, 'query.limit: limit must be a whole number 1-1,000,000'],
      ['/points', { offset: '2147483648' }, 'query.offset: offset must be at most 2,147,483,647'],
      ['/points', { offset: '0x10' }, 'query.offset: offset must be a whole number, 0 or more'],
      ['/points', { offset: 'true' }, 'query.offset: offset must be a whole number, 0 or more'],
    ];
    for (const [suffix, query, detail] of queries) expect((await stack.request.get(`${base()}${suffix}`).query(query).expect(422)).body).toEqual({ detail });
    const bodies: Array<[unknown, string]> = [
      [{ indices: [0] }, 'body.layout_id: layout_id must be the layout_id of GET …/map'],
      [{ layout_id: layoutId, indices: [] }, 'body.indices: indices must not be empty'],
      [{ layout_id: layoutId, indices: 'all' }, 'body.indices: indices must be an array of point indexes'],
      [{ layout_id: layoutId, indices: [-1] }, 'body.indices.0: each index must be a whole number, 0 or more'],
      [{ layout_id: layoutId, indices: [2147483648] }, 'body.indices.0: each index must be at most 2,147,483,647'],
      [{ layout_id: layoutId, indices: [true] }, 'body.indices.0: each index must be a whole number, 0 or more'],
      [{ layout_id: layoutId, indices: ['0x10'] }, 'body.indices.0: each index must be a whole number, 0 or more'],
      [{ layout_id: layoutId, indices: [0, count + 5] }, `body.indices: no point at ${count + 5}`],
      [{ layout_id: layoutId, indices: Array(100_001).fill(0) }, 'body.indices: indices names at most 100,000 points'],
    ];
    for (const [body, detail] of bodies) expect((await stack.request.post(`${base()}/selection`).send(body as object).expect(422)).body).toEqual({ detail });
    expect((await stack.request.post(`${base()}/selection`).send({ layout_id: randomUUID(), indices: [0] }).expect(409)).body).toEqual({
      detail: 'The map was laid out anew since it was loaded; load it again',
    });
    for (const suffix of ['', '/points']) expect((await stack.request.get(`/api/v1/dataset/${randomUUID()}/map${suffix}`).expect(404)).body).toEqual({ detail: 'Dataset not found' });

    const uploading = (await createDataset(stack.deps.db, { name: 'uploading', ownerId: stack.deps.defaultUser.id, workspaceId: (await Workspace.query(stack.deps.db).first())!.id, status: 'UPLOADING' })).id;
    const refusal = (await stack.request.get(base(uploading)).expect(409)).body;
    expect(refusal.detail).toMatch(/UPLOADING/);
    expect((await stack.request.get(`${base(uploading)}/points`).expect(409)).body).toEqual(refusal);
    expect((await stack.request.post(`${base(uploading)}/selection`).send({ layout_id: randomUUID(), indices: [0] }).expect(409)).body).toEqual(refusal);
  });
});

describe('dataset map access', () => {
  it('lets a viewer read the map and refuses someone without a role (403) or a session (401), changing nothing', async () => {
    const api = await startTestApi({ DISABLE_AUTH: 'false' });
    try {
      const { db } = api.deps;
      const { datasetId, workspaceId, viewerCookie: asViewer } = await datasetSharedWithViewer(api);
      await createUser(db, { email: 'outsider@example.com', password: 'outsider-password', workspaceId, workspaceRole: 'viewer' });
      const asOutsider = await loginCookie(api, 'outsider@example.com', 'outsider-password');
      const base = `/api/v1/dataset/${datasetId}/map`;
      const before = await databaseFingerprint(db);

      expect((await api.request.get(base).set('Cookie', asViewer).expect(200)).body).toMatchObject({ layout_id: null, count: 0, unplaced: 0, bounds: null });
      expect((await mapPage(api.request.get(`${base}/points`).set('Cookie', asViewer))).x).toHaveLength(0);
      expect((await api.request.post(`${base}/selection`).set('Cookie', asViewer).send({ layout_id: randomUUID(), indices: [0] }).expect(409)).body.detail).toMatch(/laid out anew/);

      const refused = { detail: 'You do not have permission to access this dataset' };
      expect((await api.request.get(base).set('Cookie', asOutsider).expect(403)).body).toEqual(refused);
      expect((await api.request.get(`${base}/points`).set('Cookie', asOutsider).expect(403)).body).toEqual(refused);
      expect((await api.request.post(`${base}/selection`).set('Cookie', asOutsider).send({ layout_id: randomUUID(), indices: [0] }).expect(403)).body).toEqual(refused);
      // A map region in VQL: an outsider learns nothing (403) and a viewer cannot tag by it.
      const region = JSON.stringify([{ map: { op: 'within', layout_id: randomUUID(), polygon: [[-1, -1], [1, -1], [0, 1]] } }]);
      expect((await api.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', vql: region }).set('Cookie', asOutsider).expect(403)).body).toEqual(refused);
      expect((await api.request.post(`/api/v1/dataset/${datasetId}/tags/${randomUUID()}/media`).set('Cookie', asViewer).send({ vql: region }).expect(403)).body).toEqual({ detail: expect.any(String) });
      for (const request of [api.request.get(base), api.request.get(`${base}/points`), api.request.post(`${base}/selection`).send({ layout_id: randomUUID(), indices: [0] })]) {
        expect((await request.expect(401)).body).toEqual({ detail: expect.any(String) });
      }
      expect(await databaseFingerprint(db)).toEqual(before);
    } finally {
      await api.close();
    }
  });
});
