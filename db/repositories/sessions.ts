import type { Db } from '../connection';
import { Session, type User } from '../models';
import { findEnabledUser } from './users';
import { randomToken } from '../../lib/auth/randomTokens';
import { sha256Hex } from '../../lib/sha256';

/** Opens a browser session; the returned token goes into the SESSION cookie and is stored only hashed. */
export async function createSession(db: Db, userId: string, ttlHours: number, ipAddress?: string): Promise<string> {
  const token = randomToken();
  await Session.query(db).insert({
    user_id: userId,
    token_hash: sha256Hex(token),
    ip_address: ipAddress ?? null,
    expires_at: new Date(Date.now() + ttlHours * 3600_000),
  });
  return token;
}

export async function findSessionUser(db: Db, token: string): Promise<User | undefined> {
  const session = await Session.query(db)
    .patch({ last_access_at: new Date() })
    .where({ token_hash: sha256Hex(token) })
    .where('expires_at', '>', new Date())
    .returning('user_id')
    .first();
  if (!session) return undefined;
  return findEnabledUser(db, session.user_id);
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await Session.query(db).delete().where({ token_hash: sha256Hex(token) });
}
