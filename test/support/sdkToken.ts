import { SignJWT } from 'jose';

/** Builds a token exactly as the spec's Authentication section tells clients to. */
export function sdkToken(
  apiKey: string,
  apiSecret: string,
  options: { lifetimeSeconds?: number; issuedAt?: number; issuer?: string; subject?: string; kid?: string } = {},
): Promise<string> {
  const iat = options.issuedAt ?? Math.floor(Date.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: options.kid ?? apiKey })
    .setSubject(options.subject ?? apiKey)
    .setIssuer(options.issuer ?? 'sdk')
    .setIssuedAt(iat)
    .setExpirationTime(iat + (options.lifetimeSeconds ?? 600))
    .sign(new TextEncoder().encode(apiSecret));
}
