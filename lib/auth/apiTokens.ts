import { decodeProtectedHeader, errors, jwtVerify } from 'jose';

export class InvalidTokenError extends Error {}

/**
 * Verifies a client-built JWT as the spec's Authentication section defines it: HS256 with the
 * api_secret, kid = sub = api_key, iss = sdk, iat and exp set, lifetime at most `maxLifetimeSeconds`.
 * Returns the api_key.
 */
export async function verifyApiToken(
  token: string,
  findSecret: (apiKey: string) => Promise<string | undefined>,
  maxLifetimeSeconds: number,
): Promise<string> {
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg !== 'HS256') throw new InvalidTokenError('Token must be signed with HS256');
    kid = header.kid;
  } catch (error) {
    if (error instanceof InvalidTokenError) throw error;
    throw new InvalidTokenError('Malformed token');
  }
  if (!kid) throw new InvalidTokenError('Token header has no kid');
  const secret = await findSecret(kid);
  if (!secret) throw new InvalidTokenError('Unknown API key');
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ['HS256'],
      issuer: 'sdk',
      subject: kid,
      requiredClaims: ['iat', 'exp', 'sub', 'iss'],
    });
    if ((payload.exp as number) - (payload.iat as number) > maxLifetimeSeconds) {
      throw new InvalidTokenError(`Token lifetime exceeds ${maxLifetimeSeconds} seconds`);
    }
    return kid;
  } catch (error) {
    if (error instanceof InvalidTokenError) throw error;
    if (error instanceof errors.JWTExpired) throw new InvalidTokenError('Token expired');
    throw new InvalidTokenError('Invalid token');
  }
}
