import type { Db } from '../connection';
import { Session, type User } from '../models';
import { findEnabledUser } from './users';
import { randomToken } from '../../lib/auth/randomTokens';
import { sha256Hex } from '../../lib/sha256';

/** Opens a browser session; the returned token goes into the SESSION cookie and is stored only hashed. */
export async function createSession(db: Db, userId: string, ttlHours: number, ipAddress?: string, idToken?: string): Promise<string> {
  const token = randomToken();
  await Session.query(db).insert({
    user_id: userId,
    token_hash: sha256Hex(token),
    ip_address: ipAddress ?? null,
    id_token: idToken ?? null,
    expires_at: new Date(Date.now() + ttlHours * 3600_000),
  });
  return token;
}

/** The live session of a token and its enabled user (touching its last access). */
export async function findSession(db: Db, token: string): Promise<{ sessionId: string; expiresAt: Date; user: User } | undefined> {
  const session = await Session.query(db)
    .patch({ last_access_at: new Date() })
    .where({ token_hash: sha256Hex(token) })
    .where('expires_at', '>', new Date())
    .returning(['id', 'user_id', 'expires_at'])
    .first();
  if (!session) return undefined;
  const user = await findEnabledUser(db, session.user_id);
  return user ? { sessionId: session.id, expiresAt: session.expires_at, user } : undefined;
}

/** Whether the session still exists, has not expired and belongs to an enabled user (an open stream checking it may go on). */
export async function isSessionLive(db: Db, sessionId: string): Promise<boolean> {
  const row = await Session.query(db)
    .join('users', 'users.id', 'sessions.user_id')
    .where('sessions.id', sessionId)
    .where('sessions.expires_at', '>', new Date())
    .where('users.enabled', true)
    .first()
    .select('sessions.id');
  return row !== undefined;
}

/** Ends the session of a token; returns the ID token it kept (an OIDC login's), if any. */
export async function deleteSession(db: Db, token: string): Promise<{ idToken: string | null } | undefined> {
  const [row] = await Session.query(db).delete().where({ token_hash: sha256Hex(token) }).returning('id_token');
  return row ? { idToken: row.id_token } : undefined;
}

/** Ends every session of the user; returns how many. */
export async function deleteUserSessions(db: Db, userId: string): Promise<number> {
  return Session.query(db).delete().where({ user_id: userId });
}
