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
