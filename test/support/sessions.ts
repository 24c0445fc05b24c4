import { Workspace } from '../../db/models';
import { addDatasetMember, createDataset } from '../../db/repositories/datasets';
import { createUser } from '../../db/repositories/users';
import { sdkToken } from './sdkToken';
import type { TestApi } from './testStack';

/** Logs `email` in with a password and returns its `SESSION=…` cookie, as a browser would send it back. */
export async function loginCookie(api: Pick<TestApi, 'request'>, email: string, password: string): Promise<string> {
  const response = await api.request.post('/api/v1/auth/login').send({ email, password }).expect(200);
  return (response.headers['set-cookie'] as unknown as string[]).find((cookie) => cookie.startsWith('SESSION='))!.split(';')[0];
}

/** Logs `email` in, mints API credentials with that session and returns an `Authorization` header value of the SDK's kind. */
export async function bearerOf(api: Pick<TestApi, 'request'>, email: string, password: string): Promise<string> {
  const cookie = await loginCookie(api, email, password);
  const { api_key, api_secret } = (await api.request.get('/api/v1/api_credentials').set('Cookie', cookie).expect(200)).body;
  return `Bearer ${await sdkToken(api_key, api_secret)}`;
}

/**
 * A READY dataset of an editor's, shared with a viewer, in a fresh API with auth on: the viewer's
 * session cookie, for tests of what each role may do.
 */
export async function datasetSharedWithViewer(api: Pick<TestApi, 'request' | 'deps'>): Promise<{ datasetId: string; workspaceId: string; viewerCookie: string }> {
  const { db } = api.deps;
  const workspaceId = (await Workspace.query(db).first())!.id;
  const owner = await createUser(db, { email: 'owner@example.com', password: 'owner-password', workspaceId, workspaceRole: 'editor' });
  const viewer = await createUser(db, { email: 'viewer@example.com', password: 'viewer-password', workspaceId, workspaceRole: 'viewer' });
  const datasetId = (await createDataset(db, { name: 'shared', ownerId: owner.id, workspaceId, status: 'READY' })).id;
  await addDatasetMember(db, datasetId, viewer.id, 'viewer');
  return { datasetId, workspaceId, viewerCookie: await loginCookie(api, 'viewer@example.com', 'viewer-password') };
}
