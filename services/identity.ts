import type { Db } from '../db/connection';
import type { User } from '../db/models';
import {
  createApiCredential,
  findApiCredential,
  findApiCredentialState,
  listApiCredentials,
  markApiCredentialUsed,
  revokeAllApiCredentials,
  revokeApiCredential,
  type ApiKeyRow,
  type StoredApiCredential,
} from '../db/repositories/apiCredentials';
import { createSession, deleteSession, deleteUserSessions, findSession, isSessionLive } from '../db/repositories/sessions';
import {
  authenticateWithPassword,
  createUser,
  findEnabledUser,
  findUserByEmail,
  findUserBySubject,
  linkUserToSubject,
  primaryWorkspaceId,
  updateIdpProfile,
  usernameTaken,
} from '../db/repositories/users';
import type { OidcIdentity } from '../lib/auth/oidc';
import type { SecretBox } from '../lib/auth/secretBox';
import { conflict, forbidden, notFound, unprocessable } from '../lib/errors';

/**
 * What let a request in, so that what it opened (an event stream) ends when that does: a bearer
 * token (until its exp, and while its key is live), a login session (until it expires or ends), or
 * nothing when authentication is disabled.
 */
export type Authentication =
  | { kind: 'token'; apiKey: string; expiresAt: Date }
  | { kind: 'session'; sessionId: string; expiresAt: Date }
  | { kind: 'none' };

/** The enabled user with this email and password, if any. */
export function verifyPasswordLogin(db: Db, email: string, password: string): Promise<User | undefined> {
  return authenticateWithPassword(db, email, password);
}

/** A new login session (an OIDC login's keeps its ID token); returns the token the SESSION cookie carries. */
export function startSession(db: Db, user: User, ttlHours: number, ipAddress?: string, idToken?: string): Promise<string> {
  return createSession(db, user.id, ttlHours, ipAddress, idToken);
}

/** Ends a session; returns the ID token an OIDC login kept with it (the provider's logout hint). */
export function endSession(db: Db, token: string): Promise<{ idToken: string | null } | undefined> {
  return deleteSession(db, token);
}

/** Where a user without an email at the identity provider gets one: the service keys records by email. */
export const NO_EMAIL_DOMAIN = 'idp.invalid';

/** The email a user really has: null for the stand-in of one the provider had none for. */
export function realEmail(stored: string | null): string | null {
  return stored?.endsWith(`@${NO_EMAIL_DOMAIN}`) ? null : stored;
}

/**
 * The service user of an identity the provider vouched for: the one linked to its subject; else the
 * unlinked account with its verified email, which gets linked; else a new user (viewer of the
 * primary workspace). Names and realm roles follow the provider at every login.
 */
export async function userFromOidcIdentity(db: Db, identity: OidcIdentity): Promise<User> {
  const profile = { firstName: identity.firstName, lastName: identity.lastName, realmRoles: identity.realmRoles };
  let user = await findUserBySubject(db, identity.subject);
  if (!user && identity.email && identity.emailVerified) {
    const byEmail = await findUserByEmail(db, identity.email);
    if (byEmail && !(await linkUserToSubject(db, byEmail.id, identity.subject))) {
      throw conflict('The account with this email is linked to another identity');
    }
    user = byEmail;
  }
  if (!user) {
    const workspaceId = await primaryWorkspaceId(db);
    if (!workspaceId) throw new Error('no workspace: the default tenant was not created');
    const email = identity.email ?? `${identity.username ?? identity.subject}@${NO_EMAIL_DOMAIN}`;
    if (await findUserByEmail(db, email)) throw conflict('An account with this email exists: verify the email at the identity provider to use it');
    const wanted = identity.username ?? email;
    const username = (await usernameTaken(db, wanted)) ? `${wanted}#${identity.subject}` : wanted;
    user = await createUser(db, { email, username, workspaceId, workspaceRole: 'viewer', idpSubject: identity.subject, ...profile });
  } else {
    user = await updateIdpProfile(db, user.id, profile);
  }
  if (!user.enabled) throw forbidden('This account is disabled');
  return user;
}

/** "Log out everywhere": ends every session of the user and revokes all their API keys, at once. */
export async function endAllSessionsAndKeys(db: Db, user: User): Promise<{ sessions: number; apiKeys: number }> {
  return db.transaction(async (trx) => {
    const apiKeys = await revokeAllApiCredentials(trx, user.id);
    const sessions = await deleteUserSessions(trx, user.id);
    return { sessions, apiKeys };
  });
}

/** The user of a live session token, and the session. */
export async function sessionUser(db: Db, token: string): Promise<{ user: User; authentication: Authentication } | undefined> {
  const session = await findSession(db, token);
  if (!session) return undefined;
  return { user: session.user, authentication: { kind: 'session', sessionId: session.sessionId, expiresAt: session.expiresAt } };
}

export interface ApiKeySettings {
  /** Lifetime of a key when the caller asks for none, and the longest one may ask for; null: never expires. */
  lifetimeDays: number | null;
  /** Live keys one user may hold. */
  maxPerUser: number;
}

const DAY_MS = 86_400_000;

/**
 * A new API key and secret for the user; the secret is stored sealed and shown only this once.
 * The key expires after `expiresInDays`, or the server's lifetime; a user holding the most live
 * keys allowed must revoke one first.
 */
export async function issueApiCredential(
  db: Db,
  box: SecretBox,
  user: User,
  settings: ApiKeySettings,
  expiresInDays?: number,
): Promise<{ api_key: string; api_secret: string; expires_at: Date | null }> {
  if (expiresInDays !== undefined && settings.lifetimeDays !== null && expiresInDays > settings.lifetimeDays) {
    throw unprocessable(`query.expires_in_days: keys on this server live at most ${settings.lifetimeDays} days`);
  }
  const days = expiresInDays ?? settings.lifetimeDays;
  const expiresAt = days === null ? null : new Date(Date.now() + days * DAY_MS);
  const credential = await createApiCredential(db, box, user.id, { expiresAt, maxLive: settings.maxPerUser });
  if (!credential) {
    throw conflict(
      `You already hold ${settings.maxPerUser} live API keys: revoke one (DELETE /api/v1/api_credentials/keys/{api_key}) before requesting another`,
    );
  }
  return credential;
}

/** The secret, owner and state of an API key, for verifying the JWTs signed with it. */
export function apiCredentialSecret(db: Db, box: SecretBox, apiKey: string): Promise<StoredApiCredential | undefined> {
  return findApiCredential(db, box, apiKey);
}

/** Why a verified token's key no longer admits it, if it does not. */
export function apiKeyRefusal(credential: Pick<StoredApiCredential, 'revokedAt' | 'expiresAt'>, now = new Date()): string | undefined {
  if (credential.revokedAt) return 'API key revoked';
  if (credential.expiresAt && credential.expiresAt <= now) return 'API key expired';
  return undefined;
}

const LAST_USED_PRECISION_MS = 60_000;

/** Records that a key was used; at most once a minute, so a busy client does not write on every request. */
export async function noteApiKeyUse(db: Db, apiKey: string, lastUsedAt: Date | null, now = new Date()): Promise<void> {
  if (lastUsedAt && now.getTime() - lastUsedAt.getTime() < LAST_USED_PRECISION_MS) return;
  await markApiCredentialUsed(db, apiKey, now);
}

/** The user's API keys (never their secrets), newest first. */
export function listApiKeys(
  db: Db,
  user: User,
  options: { limit: number; offset: number; liveOnly: boolean },
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  return listApiCredentials(db, user.id, options);
}

/** Revokes one of the user's own keys; revoking it again changes nothing. Another user's key is not found. */
export async function revokeApiKey(db: Db, user: User, apiKey: string): Promise<ApiKeyRow> {
  const revoked = await revokeApiCredential(db, user.id, apiKey);
  if (!revoked) throw notFound('API key not found');
  return revoked;
}

/**
 * Why what admitted a request no longer does (token or session expired, key revoked or expired,
 * session ended, user disabled), or undefined while it still does. One query per call: open
 * streams ask it every keepalive.
 */
export async function authenticationEnded(db: Db, user: User, authentication: Authentication, now = new Date()): Promise<string | undefined> {
  switch (authentication.kind) {
    case 'none':
      return undefined;
    case 'token': {
      if (authentication.expiresAt <= now) return 'Token expired';
      const key = await findApiCredentialState(db, authentication.apiKey);
      if (!key || key.userId !== user.id) return 'Unknown API key';
      return apiKeyRefusal(key, now) ?? (key.userEnabled ? undefined : 'User is disabled or no longer exists');
    }
    case 'session':
      if (authentication.expiresAt <= now) return 'Session expired';
      // One query per check: a disabled user's session counts as ended.
      return (await isSessionLive(db, authentication.sessionId)) ? undefined : 'Session ended';
  }
}

/** The user, unless disabled or deleted. */
export function enabledUser(db: Db, userId: string): Promise<User | undefined> {
  return findEnabledUser(db, userId);
}
