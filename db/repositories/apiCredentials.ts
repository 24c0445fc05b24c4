import type { QueryBuilder } from 'objection';
import type { Db } from '../connection';
import { ApiCredential, User } from '../models';
import { randomToken } from '../../lib/auth/randomTokens';
import type { SecretBox } from '../../lib/auth/secretBox';

/** An API key as its owner may see it: never the secret. */
export interface ApiKeyRow {
  api_key: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

const KEY_COLUMNS = ['api_key', 'created_at', 'last_used_at', 'expires_at', 'revoked_at'] as const;

type KeyQuery = QueryBuilder<ApiCredential, ApiCredential[]>;

/** Keys that still open: not revoked and not expired. */
function live(query: KeyQuery, now = new Date()): KeyQuery {
  return query.whereNull('revoked_at').where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now));
}

/**
 * A new key pair for the user, unless they already hold `maxLive` live keys (then undefined). Keys
 * whose secret no longer opens (sealed under an earlier SECRET_KEY) admit nothing, so they do not
 * count. The user's row is locked while counting, so parallel requests cannot all slip under the limit.
 */
export async function createApiCredential(
  db: Db,
  box: SecretBox,
  userId: string,
  options: { expiresAt: Date | null; maxLive: number },
): Promise<{ api_key: string; api_secret: string; expires_at: Date | null } | undefined> {
  return db.transaction(async (trx) => {
    await User.query(trx).findById(userId).forUpdate();
    const sealed = await live(ApiCredential.query(trx).where({ user_id: userId })).select('secret_ciphertext');
    if (sealed.filter((key) => box.opens(key.secret_ciphertext)).length >= options.maxLive) return undefined;
    const apiKey = `ak_${randomToken(16)}`;
    const apiSecret = randomToken(32);
    await ApiCredential.query(trx).insert({
      user_id: userId,
      api_key: apiKey,
      secret_ciphertext: box.seal(apiSecret),
      expires_at: options.expiresAt,
    });
    return { api_key: apiKey, api_secret: apiSecret, expires_at: options.expiresAt };
  });
}

export interface StoredApiCredential {
  secret: string;
  userId: string;
  revokedAt: Date | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/** The secret, owner and state of an API key (revoked and expired ones too, so a refusal can say why). */
export async function findApiCredential(db: Db, box: SecretBox, apiKey: string): Promise<StoredApiCredential | undefined> {
  const credential = await ApiCredential.query(db).findOne({ api_key: apiKey });
  if (!credential) return undefined;
  return {
    secret: box.open(credential.secret_ciphertext),
    userId: credential.user_id,
    revokedAt: credential.revoked_at,
    expiresAt: credential.expires_at,
    lastUsedAt: credential.last_used_at,
  };
}

/** The state of an API key and whether its owner is enabled, without opening its secret (an open stream checking it is still good). */
export async function findApiCredentialState(
  db: Db,
  apiKey: string,
): Promise<{ userId: string; userEnabled: boolean; revokedAt: Date | null; expiresAt: Date | null } | undefined> {
  const row = (await ApiCredential.query(db)
    .join('users', 'users.id', 'api_credentials.user_id')
    .where('api_credentials.api_key', apiKey)
    .first()
    .select('api_credentials.user_id', 'api_credentials.revoked_at', 'api_credentials.expires_at', 'users.enabled')) as
    | (Pick<ApiCredential, 'user_id' | 'revoked_at' | 'expires_at'> & { enabled: boolean })
    | undefined;
  return row ? { userId: row.user_id, userEnabled: row.enabled, revokedAt: row.revoked_at, expiresAt: row.expires_at } : undefined;
}

export async function markApiCredentialUsed(db: Db, apiKey: string, at: Date): Promise<void> {
  await ApiCredential.query(db).patch({ last_used_at: at }).where({ api_key: apiKey });
}

/** The user's keys, newest first. */
export async function listApiCredentials(
  db: Db,
  userId: string,
  options: { limit: number; offset: number; liveOnly: boolean },
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  const mine = () => {
    const query = ApiCredential.query(db).where({ user_id: userId });
    return options.liveOnly ? live(query) : query;
  };
  const [rows, total] = await Promise.all([
    mine()
      .select(...KEY_COLUMNS)
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(options.limit)
      .offset(options.offset),
    mine().resultSize(),
  ]);
  return { rows: rows.map(toRow), total };
}

/** Revokes one of the user's keys (keeping the first revocation time); undefined when the user has no such key. */
export async function revokeApiCredential(db: Db, userId: string, apiKey: string): Promise<ApiKeyRow | undefined> {
  const [row] = await ApiCredential.query(db)
    .patch({ revoked_at: ApiCredential.raw('coalesce(revoked_at, now())') as unknown as Date })
    .where({ user_id: userId, api_key: apiKey })
    .returning([...KEY_COLUMNS]);
  return row ? toRow(row) : undefined;
}

/** Revokes every key of the user that is not revoked yet; returns how many. */
export async function revokeAllApiCredentials(db: Db, userId: string): Promise<number> {
  return ApiCredential.query(db).patch({ revoked_at: new Date() }).where({ user_id: userId }).whereNull('revoked_at');
}

function toRow(credential: Pick<ApiCredential, (typeof KEY_COLUMNS)[number]>): ApiKeyRow {
  return {
    api_key: credential.api_key,
    created_at: credential.created_at,
    last_used_at: credential.last_used_at,
    expires_at: credential.expires_at,
    revoked_at: credential.revoked_at,
  };
}
