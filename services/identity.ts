import type { Db } from '../db/connection';
import type { User } from '../db/models';
import { createApiCredential, findApiCredential } from '../db/repositories/apiCredentials';
import { createSession, deleteSession, findSessionUser } from '../db/repositories/sessions';
import { authenticateWithPassword, findEnabledUser } from '../db/repositories/users';
import type { SecretBox } from '../lib/auth/secretBox';

/** The enabled user with this email and password, if any. */
export function verifyPasswordLogin(db: Db, email: string, password: string): Promise<User | undefined> {
  return authenticateWithPassword(db, email, password);
}

/** A new login session; returns the token the SESSION cookie carries. */
export function startSession(db: Db, user: User, ttlHours: number, ipAddress?: string): Promise<string> {
  return createSession(db, user.id, ttlHours, ipAddress);
}

export function endSession(db: Db, token: string): Promise<void> {
  return deleteSession(db, token);
}

/** The user of a live session token. */
export function sessionUser(db: Db, token: string): Promise<User | undefined> {
  return findSessionUser(db, token);
}

/** A new API key and secret for the user; the secret is stored sealed and shown only this once. */
export function issueApiCredential(db: Db, box: SecretBox, user: User): Promise<{ api_key: string; api_secret: string }> {
  return createApiCredential(db, box, user.id);
}

/** The secret and owner of a live API key, for verifying the JWTs signed with it. */
export function apiCredentialSecret(db: Db, box: SecretBox, apiKey: string): Promise<{ secret: string; userId: string } | undefined> {
  return findApiCredential(db, box, apiKey);
}

/** The user, unless disabled or deleted. */
export function enabledUser(db: Db, userId: string): Promise<User | undefined> {
  return findEnabledUser(db, userId);
}
