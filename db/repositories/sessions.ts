import type { Db } from '../connection';
import { Session, User } from '../models';
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

/** How stale a session's last access may get: touching it on every request would make each read a write. */
const LAST_ACCESS_PRECISION_MS = 60_000;

/** The live session of a token and its enabled user, in one query; its last access is touched at most once a minute. */
export async function findSession(db: Db, token: string): Promise<{ sessionId: string; expiresAt: Date; user: User } | undefined> {
  const now = new Date();
  const row = await db('sessions as s')
    .join('users as u', 'u.id', 's.user_id')
    .where('s.token_hash', sha256Hex(token))
    .where('s.expires_at', '>', now)
    .where('u.enabled', true)
    .first('u.*', 's.id as session_id', 's.expires_at as session_expires_at', 's.last_access_at as session_last_access_at');
  if (!row) return undefined;
  const { session_id: sessionId, session_expires_at: expiresAt, session_last_access_at: lastAccess, ...user } = row;
  if (now.getTime() - new Date(lastAccess).getTime() >= LAST_ACCESS_PRECISION_MS) {
    await Session.query(db).patch({ last_access_at: now }).where({ id: sessionId });
  }
  return { sessionId, expiresAt, user: User.fromDatabaseJson(user) };
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
