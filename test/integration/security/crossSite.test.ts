import { randomUUID } from 'node:crypto';
import { startPipelineTrigger } from '../../../api/server';
import { API_ROUTES } from '../../../api/specs';
import type { RouteSpec } from '../../../api/routeSpec';
import { createDataset } from '../../../db/repositories/datasets';
import { Workspace } from '../../../db/models';
import { databaseFingerprint } from '../../support/databaseFingerprint';
import { loginCookie } from '../../support/sessions';
import { startTestApi, type TestApi } from '../../support/testStack';

const PUBLIC_URL = 'http://mds.example';
const ATTACKER = 'http://attacker.example';
const REFUSED = { detail: "Cross-site request refused: a request that changes data must come from this service's own pages" };
const password = 'cross-site-password';

/** Every route that changes state: any method but GET, and the GETs the contract makes create things. */
const stateChanging = API_ROUTES.filter((route) => route.method !== 'get' || route.changesState);

/**
 * The cross-site matrix: every route that changes state, sent by a browser from another site's page
 * with the session cookie (or to an API without authentication), is refused before it is read.
 */
describe('cross-site requests (every state-changing route × session cookie or no authentication × foreign page)', () => {
  let secured: TestApi;
  let open: TestApi;
  let cookie: string;
  let datasetId: string;

  /** The route's path with this dataset's id, and made-up ids and names elsewhere. */
  const pathOf = (route: RouteSpec) =>
    `/api/v1${route.path.replace(/:(\w+)/g, (_, name: string) => (name === 'dataset_id' ? datasetId : name.endsWith('_id') ? randomUUID() : 'x'))}`;
  /** The router matches paths case-insensitively, so every check must hold for the case-folded path too. */
  const send = (api: TestApi, route: RouteSpec, method: string = route.method, fold: (path: string) => string = (path) => path) => {
    const request = api.request[method as 'get'](fold(pathOf(route)));
    return route.request.body ? request.send({}) : request;
  };

  beforeAll(async () => {
    secured = await startTestApi({ DISABLE_AUTH: 'false', ADMIN_PASSWORD: password, PUBLIC_URL });
    open = await startTestApi({ PUBLIC_URL });
    cookie = await loginCookie(secured, 'admin@localhost.localdomain', password);
    const admin = secured.deps.defaultUser;
    const workspaceId = (await Workspace.query(secured.deps.db).first())!.id;
    datasetId = (await createDataset(secured.deps.db, { name: 'target', ownerId: admin.id, workspaceId, status: 'READY' })).id;
  });
  afterAll(async () => {
    await secured?.close();
    await open?.close();
  });

  it('covers every route that changes state', () => {
    expect(stateChanging.length).toBeGreaterThan(30);
    expect(stateChanging.filter((route) => route.method === 'get').map((route) => route.path).sort()).toEqual([
      '/api_credentials',
      '/dataset/:dataset_id/export_context_async',
      '/ingestion/:dataset_id/data_files',
      '/ingestion/new_dataset',
    ]);
  });

  for (const route of stateChanging) {
    it(`${route.method.toUpperCase()} ${route.path} from another site's page answers 403 and changes nothing`, async () => {
      const before = { secured: await databaseFingerprint(secured.deps.db), open: await databaseFingerprint(open.deps.db) };
      const methods = route.method === 'get' ? ['get', 'head'] : [route.method];
      for (const method of methods) {
        const fetchMetadata = await send(secured, route, method).set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site').set('Origin', ATTACKER);
        expect([fetchMetadata.status, fetchMetadata.body]).toEqual([403, method === 'head' ? {} : REFUSED]);
        const originOnly = await send(secured, route, method).set('Cookie', cookie).set('Origin', ATTACKER);
        expect(originOnly.status).toBe(403);
        const sameSite = await send(secured, route, method).set('Cookie', cookie).set('Sec-Fetch-Site', 'same-site');
        expect(sameSite.status).toBe(403);
        const unauthenticated = await send(open, route, method).set('Sec-Fetch-Site', 'cross-site');
        expect(unauthenticated.status).toBe(403);
        for (const fold of [(path: string) => path.toUpperCase(), (path: string) => path.replace(/\/(\w)/g, (_, c: string) => `/${c.toUpperCase()}`)]) {
          const folded = await send(secured, route, method, fold).set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site');
          expect(folded.status).toBe(403);
          expect((await send(open, route, method, fold).set('Sec-Fetch-Site', 'cross-site')).status).toBe(403);
        }
      }
      expect({ secured: await databaseFingerprint(secured.deps.db), open: await databaseFingerprint(open.deps.db) }).toEqual(before);
    });
  }

  it("compares Origin with PUBLIC_URL's origin, never with the request's own Host", async () => {
    const views = `/api/v1/dataset/${datasetId}/views`;
    const ownHost = `http://${new URL(PUBLIC_URL).host}`;
    // supertest sends Host 127.0.0.1:<port>: an Origin naming that host is still another site.
    const sameAsHost = await secured.request.post(views).set('Cookie', cookie).set('Origin', 'http://127.0.0.1').field('name', 'a');
    expect([sameAsHost.status, sameAsHost.body]).toEqual([403, REFUSED]);
    await secured.request.post(views).set('Cookie', cookie).set('Host', 'attacker.example').set('Origin', ATTACKER).field('name', 'b').expect(403);
    await secured.request.post(views).set('Cookie', cookie).set('Origin', ownHost).field('name', 'from our page').expect(200);
    expect((await secured.deps.db('saved_views').where({ name: 'from our page' })).length).toBe(1);
  });

  it('lets through what is not a cross-site browser request: same-origin and direct navigation, tools without Origin, and reads', async () => {
    await secured.request.post(`/api/v1/dataset/${datasetId}/views`).set('Cookie', cookie).set('Sec-Fetch-Site', 'same-origin').field('name', 'same origin').expect(200);
    await secured.request.get('/api/v1/ingestion/new_dataset?dataset_name=typed').set('Cookie', cookie).set('Sec-Fetch-Site', 'none').expect(200);
    await open.request.get('/api/v1/ingestion/new_dataset?dataset_name=curl').expect(200);
    await secured.request.get(`/api/v1/dataset/${datasetId}`).set('Cookie', cookie).set('Sec-Fetch-Site', 'cross-site').expect(200);
    await open.request.get('/api/v1/datasets').set('Sec-Fetch-Site', 'cross-site').set('Origin', ATTACKER).expect(200);
  });

  it('refuses any web page the pipeline trigger, whose GET starts a batch, and lets tools through', async () => {
    const trigger = await startPipelineTrigger(open.deps);
    try {
      const openDataset = (await open.request.get('/api/v1/ingestion/new_dataset?dataset_name=piped').expect(200)).body.dataset_id;
      const url = `${trigger!.url}/api/v1/process/add_media?dataset_id=${openDataset}&path=${encodeURIComponent('/')}`;
      const before = await databaseFingerprint(open.deps.db);
      const pages: Array<Record<string, string>> = [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: ATTACKER }];
      for (const headers of pages) {
        const refused = await fetch(url, { headers });
        expect([refused.status, await refused.json()]).toEqual([403, { detail: 'Refused: the pipeline trigger is for tools on this machine, not for web pages' }]);
      }
      expect(await databaseFingerprint(open.deps.db)).toEqual(before);
      // A tool gets through to the trigger's own checks (the dataset is not indexed yet).
      expect((await fetch(url, { headers: { 'sec-fetch-site': 'none' } })).status).not.toBe(403);
    } finally {
      await trigger?.close();
    }
  });
});
