import { Workspace } from '../../../db/models';
import { createDataset } from '../../../db/repositories/datasets';
import { createUser } from '../../../db/repositories/users';
import { createSecretBox } from '../../../lib/auth/secretBox';
import { sdkToken } from '../../support/sdkToken';
import { loginCookie } from '../../support/sessions';
import { startTestApi, type TestApi } from '../../support/testStack';

const password = 'accounts-password-1';

/** What accounts reveal and hold: API keys under a changed SECRET_KEY, invitations that probe for accounts. */
describe('accounts: keys a changed SECRET_KEY killed, and invitations that probe for accounts', () => {
  let api: TestApi;
  let workspaceId: string;

  beforeAll(async () => {
    api = await startTestApi({ RUN_MODE: 'CLOUD', SECRET_KEY: 'accounts-secret-key-long-enough-0123456789', API_KEY_MAX_PER_USER: '2', LOGIN_MAX_FAILURES: '3' });
    workspaceId = (await Workspace.query(api.deps.db).first())!.id;
  });
  afterAll(() => api?.close());

  const mint = (cookie: string) => api.request.get('/api/v1/api_credentials').set('Cookie', cookie);

  it('does not count keys sealed under an earlier SECRET_KEY against the per-user limit, and they admit nothing', async () => {
    const user = await createUser(api.deps.db, { email: 'keys@example.com', password, workspaceId, workspaceRole: 'editor' });
    const cookie = await loginCookie(api, 'keys@example.com', password);
    const old = [(await mint(cookie).expect(200)).body, (await mint(cookie).expect(200)).body] as Array<{ api_key: string; api_secret: string }>;
    await mint(cookie).expect(409);
    // The operator changes SECRET_KEY: what was sealed with the old key no longer opens.
    const earlier = createSecretBox('an-earlier-secret-key-of-this-server-0123456789');
    for (const key of old) await api.deps.db('api_credentials').where({ api_key: key.api_key }).update({ secret_ciphertext: earlier.seal(key.api_secret) });
    const fresh = (await mint(cookie).expect(200)).body as { api_key: string; api_secret: string };
    await mint(cookie).expect(200);
    await mint(cookie).expect(409);
    await api.request.get('/api/v1/datasets').set('Authorization', `Bearer ${await sdkToken(old[0].api_key, old[0].api_secret)}`).expect(401);
    await api.request.get('/api/v1/datasets').set('Authorization', `Bearer ${await sdkToken(fresh.api_key, fresh.api_secret)}`).expect(200);
    expect(await api.deps.db('api_credentials').where({ user_id: user.id }).count({ n: '*' })).toEqual([{ n: '4' }]);
  });

  it('counts failed invitations like failed logins: probing emails is locked out with 429 and Retry-After', async () => {
    const owner = await createUser(api.deps.db, { email: 'prober@example.com', password, workspaceId, workspaceRole: 'editor' });
    await createUser(api.deps.db, { email: 'registered@example.com', password, workspaceId, workspaceRole: 'viewer' });
    const datasetId = (await createDataset(api.deps.db, { name: 'shared', ownerId: owner.id, workspaceId, status: 'READY' })).id;
    const { api_key, api_secret } = (await mint(await loginCookie(api, 'prober@example.com', password)).expect(200)).body;
    const bearer = `Bearer ${await sdkToken(api_key, api_secret)}`;
    const invite = (email: string) => api.request.put(`/api/v1/manage/${datasetId}/invite`).set('Authorization', bearer).send({ grant_to_user_email: email });
    await invite('registered@example.com').expect(200);
    for (const guess of ['a@example.com', 'b@example.com', 'c@example.com']) {
      expect((await invite(guess).expect(404)).body).toEqual({ detail: 'No registered account with this email' });
    }
    const locked = await invite('registered@example.com').expect(429);
    expect(locked.body.detail).toMatch(/^Too many failed invitations: try again in \d+ s$/);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(await api.deps.db('dataset_members').where({ dataset_id: datasetId }).count({ n: '*' })).toEqual([{ n: '2' }]);
  });
});
