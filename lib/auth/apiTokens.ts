import { decodeProtectedHeader, errors, jwtVerify } from 'jose';

export class InvalidTokenError extends Error {}

const API_KEY_SHAPE = /^[\x21-\x7e]{1,128}$/;

/** How far a client's clock may run ahead of ours. */
export const CLOCK_SKEW_SECONDS = 60;

/**
 * Verifies a client-built JWT as the spec's Authentication section defines it: HS256 with the
 * api_secret, kid = sub = api_key, iss = sdk, iat and exp whole seconds, iat not in the future
 * (beyond CLOCK_SKEW_SECONDS), lifetime at most `maxLifetimeSeconds`. Returns the api_key and
 * when the token expires (whatever it opened, an event stream say, must end then).
 */
export async function verifyApiToken(
  token: string,
  findSecret: (apiKey: string) => Promise<string | undefined>,
  maxLifetimeSeconds: number,
  nowSeconds: number = Math.floor(Date.now() / 1000),
): Promise<{ apiKey: string; expiresAt: Date }> {
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
  // Our keys are short printable ASCII; anything else (NUL, a number, megabytes) is unknown without a lookup.
  if (typeof kid !== 'string' || !API_KEY_SHAPE.test(kid)) throw new InvalidTokenError('Unknown API key');
  const secret = await findSecret(kid);
  if (!secret) throw new InvalidTokenError('Unknown API key');
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
      algorithms: ['HS256'],
      issuer: 'sdk',
      subject: kid,
      requiredClaims: ['iat', 'exp', 'sub', 'iss'],
      currentDate: new Date(nowSeconds * 1000),
    });
    const { iat, exp } = payload;
    // Huge values (2^53 and up) lose precision, so a lifetime computed from them means nothing.
    if (!Number.isSafeInteger(iat) || !Number.isSafeInteger(exp)) throw new InvalidTokenError('Token iat and exp must be whole seconds');
    if (iat! > nowSeconds + CLOCK_SKEW_SECONDS) throw new InvalidTokenError('Token issued in the future');
    if (exp! - iat! > maxLifetimeSeconds) throw new InvalidTokenError(`Token lifetime exceeds ${maxLifetimeSeconds} seconds`);
    return { apiKey: kid, expiresAt: new Date(exp! * 1000) };
  } catch (error) {
    if (error instanceof InvalidTokenError) throw error;
    if (error instanceof errors.JWTExpired) throw new InvalidTokenError('Token expired');
    throw new InvalidTokenError('Invalid token');
  }
}
