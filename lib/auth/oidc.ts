import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';

/** A refused login (bad state, nonce, code or ID token); the message is safe to show. */
export class OidcLoginError extends Error {}

/** The provider cannot be reached or answered nonsense (discovery, token endpoint, keys). */
export class OidcProviderError extends Error {}

export interface OidcClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** What a login remembers between the redirect to the provider and the callback (sealed in a cookie). */
export interface PendingLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** Where the browser goes after the login: a path of this service. */
  returnTo: string;
  /** Epoch-ms after which the callback is refused. */
  expiresAt: number;
}

/** Who logged in, from the verified ID token. */
export interface OidcIdentity {
  subject: string;
  email?: string;
  emailVerified: boolean;
  username?: string;
  firstName?: string;
  lastName?: string;
  /** Realm roles, when the provider puts them in the ID token (realm_access.roles, as our realm does). */
  realmRoles?: string[];
  /** Kept with the session for the provider's logout (id_token_hint). */
  idToken: string;
}

interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  end_session_endpoint?: string;
}

export const LOGIN_TTL_MS = 10 * 60_000;
const PROVIDER_TIMEOUT_MS = 10_000;

const random = () => randomBytes(32).toString('base64url');

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

async function providerJson(url: string, init: RequestInit, what: string): Promise<Record<string, unknown>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS), redirect: 'error' });
  } catch (error) {
    throw new OidcProviderError(`${what}: the identity provider is unreachable (${(error as Error).message})`);
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new OidcProviderError(`${what}: the identity provider answered ${response.status} without JSON`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OidcProviderError(`${what}: unexpected answer`);
  if (!response.ok) {
    const error = (body as { error?: unknown }).error;
    // A refused code (invalid_grant: reused, expired, or made for another verifier) is the login's fault.
    if (response.status === 400 && typeof error === 'string') throw new OidcLoginError(`The identity provider refused the login (${error})`);
    throw new OidcProviderError(`${what}: the identity provider answered ${response.status}`);
  }
  return body as Record<string, unknown>;
}

const stringClaim = (payload: JWTPayload, name: string): string | undefined =>
  typeof payload[name] === 'string' && payload[name] !== '' ? (payload[name] as string) : undefined;

/**
 * An OpenID Connect relying party: authorization code flow with PKCE (S256), state and nonce,
 * ID tokens verified against the issuer's JWKS (jose). Works with any standards-compliant provider.
 */
export function createOidcClient(settings: OidcClientSettings) {
  let metadata: Promise<ProviderMetadata> | undefined;
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;

  /** The discovery document, fetched once (again after a failure). */
  function provider(): Promise<ProviderMetadata> {
    metadata ??= (async () => {
      const body = await providerJson(`${settings.issuer}/.well-known/openid-configuration`, {}, 'discovery');
      for (const field of ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
        if (typeof body[field] !== 'string') throw new OidcProviderError(`discovery: no ${field}`);
      }
      if (body.issuer !== settings.issuer) throw new OidcProviderError(`discovery: issuer ${String(body.issuer)} is not OIDC_ISSUER ${settings.issuer}`);
      return body as unknown as ProviderMetadata;
    })();
    metadata.catch(() => (metadata = undefined));
    return metadata;
  }

  /** The claims of an ID token signed by the issuer's keys, for this client, with this nonce. */
  async function verifyIdToken(idToken: string, nonce: string): Promise<OidcIdentity> {
    const { jwks_uri } = await provider();
    keys ??= createRemoteJWKSet(new URL(jwks_uri), { timeoutDuration: PROVIDER_TIMEOUT_MS });
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(idToken, keys, { issuer: settings.issuer, audience: settings.clientId, clockTolerance: 60 }));
    } catch (error) {
      if (error instanceof joseErrors.JOSEError && !(error instanceof joseErrors.JWKSTimeout)) {
        throw new OidcLoginError(`The ID token is not valid (${error.code})`);
      }
      throw new OidcProviderError(`keys: ${(error as Error).message}`);
    }
    if (typeof payload.nonce !== 'string' || !sameText(payload.nonce, nonce)) throw new OidcLoginError('The ID token nonce does not match: start the login again');
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== settings.clientId) throw new OidcLoginError('The ID token was issued to another client');
    if (!payload.sub) throw new OidcLoginError('The ID token names no subject');
    const realmAccess = payload.realm_access as { roles?: unknown } | undefined;
    const roles = Array.isArray(realmAccess?.roles) ? realmAccess.roles.filter((role): role is string => typeof role === 'string') : undefined;
    return {
      subject: payload.sub,
      email: stringClaim(payload, 'email')?.toLowerCase(),
      emailVerified: payload.email_verified === true,
      username: stringClaim(payload, 'preferred_username'),
      firstName: stringClaim(payload, 'given_name'),
      lastName: stringClaim(payload, 'family_name'),
      realmRoles: roles,
      idToken,
    };
  }

  return {
    verifyIdToken,

    /** The provider's authorization URL for a new login, and what the callback must find again. */
    async beginLogin(redirectUri: string, returnTo: string): Promise<{ url: string; pending: PendingLogin }> {
      const { authorization_endpoint } = await provider();
      const pending: PendingLogin = { state: random(), nonce: random(), codeVerifier: random(), returnTo, expiresAt: Date.now() + LOGIN_TTL_MS };
      const url = new URL(authorization_endpoint);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: settings.clientId,
        redirect_uri: redirectUri,
        scope: 'openid email profile',
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: createHash('sha256').update(pending.codeVerifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      return { url: url.toString(), pending };
    },

    /** Checks the callback against the pending login, redeems the code and verifies the ID token. */
    async finishLogin(pending: PendingLogin, callback: { code: string; state: string }, redirectUri: string): Promise<OidcIdentity> {
      if (pending.expiresAt < Date.now()) throw new OidcLoginError('The login took too long: start it again');
      if (!sameText(pending.state, callback.state)) throw new OidcLoginError('The login state does not match: start the login again');
      const { token_endpoint } = await provider();
      const tokens = await providerJson(
        token_endpoint,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${encodeURIComponent(settings.clientId)}:${encodeURIComponent(settings.clientSecret)}`).toString('base64')}`,
          },
          body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.code, redirect_uri: redirectUri, code_verifier: pending.codeVerifier }),
        },
        'token',
      );
      if (typeof tokens.id_token !== 'string') throw new OidcProviderError('token: no id_token in the answer');
      return verifyIdToken(tokens.id_token, pending.nonce);
    },

    /** Where to send the browser so the provider ends its session too; undefined when it has no end_session_endpoint. */
    async logoutUrl(options: { idToken?: string; postLogoutRedirectUri: string }): Promise<string | undefined> {
      const { end_session_endpoint } = await provider();
      if (!end_session_endpoint) return undefined;
      const url = new URL(end_session_endpoint);
      url.search = new URLSearchParams({
        client_id: settings.clientId,
        post_logout_redirect_uri: options.postLogoutRedirectUri,
        ...(options.idToken ? { id_token_hint: options.idToken } : {}),
      }).toString();
      return url.toString();
    },
  };
}

export type OidcClient = ReturnType<typeof createOidcClient>;
