import type { TestApi } from './testStack';

/** Logs `email` in with a password and returns its `SESSION=…` cookie, as a browser would send it back. */
export async function loginCookie(api: Pick<TestApi, 'request'>, email: string, password: string): Promise<string> {
  const response = await api.request.post('/api/v1/auth/login').send({ email, password }).expect(200);
  return (response.headers['set-cookie'] as unknown as string[]).find((cookie) => cookie.startsWith('SESSION='))!.split(';')[0];
}
