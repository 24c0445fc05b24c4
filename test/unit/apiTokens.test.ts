import { SignJWT } from 'jose';
import { CLOCK_SKEW_SECONDS, InvalidTokenError, verifyApiToken } from '../../lib/auth/apiTokens';
import { sdkToken } from '../support/sdkToken';

const apiKey = 'ak_test';
const apiSecret = 'a-secret-of-reasonable-length-1234567890';
const findSecret = async (key: string) => (key === apiKey ? apiSecret : undefined);
const verify = (token: string) => verifyApiToken(token, findSecret, 86400);

async function rejection(token: string): Promise<string> {
  const error = await verify(token).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(InvalidTokenError);
  return (error as Error).message;
}

describe('verifyApiToken', () => {
  it('accepts a token built as the spec says and returns its api key and expiry', async () => {
    const iat = Math.floor(Date.now() / 1000);
    await expect(verify(await sdkToken(apiKey, apiSecret, { issuedAt: iat, lifetimeSeconds: 600 }))).resolves.toEqual({
      apiKey,
      expiresAt: new Date((iat + 600) * 1000),
    });
  });

  it('rejects an expired token', async () => {
    const token = await sdkToken(apiKey, apiSecret, { issuedAt: Math.floor(Date.now() / 1000) - 1200 });
    expect(await rejection(token)).toBe('Token expired');
  });

  it('rejects a token signed with another secret', async () => {
    expect(await rejection(await sdkToken(apiKey, 'another-secret-entirely-0123456789'))).toBe('Invalid token');
  });

  it('rejects a token whose payload was altered', async () => {
    const [header, , signature] = (await sdkToken(apiKey, apiSecret)).split('.');
    const forged = Buffer.from(JSON.stringify({ sub: apiKey, iss: 'sdk', iat: 1, exp: 4102444800 })).toString('base64url');
    expect(await rejection(`${header}.${forged}.${signature}`)).toBe('Invalid token');
  });

  it('rejects an unknown kid', async () => {
    expect(await rejection(await sdkToken('ak_unknown', apiSecret))).toBe('Unknown API key');
  });

  it('rejects a kid that cannot be an API key (NUL, overlong) without looking it up', async () => {
    const looked: string[] = [];
    const recordingFind = async (key: string) => (looked.push(key), findSecret(key));
    for (const kid of ['ak_\u0000', 'k'.repeat(129), 'ak with space']) {
      const token = await sdkToken(kid, apiSecret);
      await expect(verifyApiToken(token, recordingFind, 86400)).rejects.toThrow('Unknown API key');
    }
    expect(looked).toEqual([]);
  });

  it('rejects a wrong issuer and a subject that is not the kid', async () => {
    expect(await rejection(await sdkToken(apiKey, apiSecret, { issuer: 'someone' }))).toBe('Invalid token');
    expect(await rejection(await sdkToken(apiKey, apiSecret, { subject: 'ak_other' }))).toBe('Invalid token');
  });

  it('rejects a token without kid, without exp, or not HS256', async () => {
    const noKid = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(apiKey).setIssuer('sdk')
      .setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(apiSecret));
    expect(await rejection(noKid)).toBe('Token header has no kid');
    const noExp = await new SignJWT({}).setProtectedHeader({ alg: 'HS256', kid: apiKey }).setSubject(apiKey)
      .setIssuer('sdk').setIssuedAt().sign(new TextEncoder().encode(apiSecret));
    expect(await rejection(noExp)).toBe('Invalid token');
    const hs512 = await new SignJWT({}).setProtectedHeader({ alg: 'HS512', kid: apiKey }).setSubject(apiKey)
      .setIssuer('sdk').setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(apiSecret));
    expect(await rejection(hs512)).toBe('Token must be signed with HS256');
    expect(await rejection('not-a-jwt')).toBe('Malformed token');
  });

  it('rejects a token issued in the future beyond the clock skew, whatever its lifetime', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await rejection(await sdkToken(apiKey, apiSecret, { issuedAt: now + CLOCK_SKEW_SECONDS + 5 }))).toBe('Token issued in the future');
    // The token: iat = 2^53, exp = iat + 1, a "lifetime" of one second that never expires.
    const forever = await new SignJWT({}).setProtectedHeader({ alg: 'HS256', kid: apiKey }).setSubject(apiKey).setIssuer('sdk')
      .setIssuedAt(2 ** 53).setExpirationTime(2 ** 53 + 1).sign(new TextEncoder().encode(apiSecret));
    expect(await rejection(forever)).toBe('Token iat and exp must be whole seconds');
    const farFuture = await sdkToken(apiKey, apiSecret, { issuedAt: 4102444800, lifetimeSeconds: 1 });
    expect(await rejection(farFuture)).toBe('Token issued in the future');
    // A client clock slightly ahead is fine.
    await expect(verify(await sdkToken(apiKey, apiSecret, { issuedAt: now + 30 }))).resolves.toMatchObject({ apiKey });
  });

  it('rejects fractional iat and exp', async () => {
    const now = Date.now() / 1000;
    const fractional = await new SignJWT({}).setProtectedHeader({ alg: 'HS256', kid: apiKey }).setSubject(apiKey).setIssuer('sdk')
      .setIssuedAt(now - 0.5).setExpirationTime(now + 599.5).sign(new TextEncoder().encode(apiSecret));
    expect(await rejection(fractional)).toBe('Token iat and exp must be whole seconds');
  });

  it('rejects a lifetime above the configured maximum', async () => {
    const token = await sdkToken(apiKey, apiSecret, { lifetimeSeconds: 7200 });
    await expect(verifyApiToken(token, findSecret, 3600)).rejects.toThrow('Token lifetime exceeds 3600 seconds');
  });
});
