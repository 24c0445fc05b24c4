import type { Db } from '../connection';
import { ApiCredential } from '../models';
import { randomToken } from '../../lib/auth/randomTokens';
import type { SecretBox } from '../../lib/auth/secretBox';

export async function createApiCredential(
  db: Db,
  box: SecretBox,
  userId: string,
): Promise<{ api_key: string; api_secret: string }> {
  const apiKey = `ak_${randomToken(16)}`;
  const apiSecret = randomToken(32);
  await ApiCredential.query(db).insert({ user_id: userId, api_key: apiKey, secret_ciphertext: box.seal(apiSecret) });
  return { api_key: apiKey, api_secret: apiSecret };
}

/** The secret and owner of a live API key, for HS256 verification. */
export async function findApiCredential(
  db: Db,
  box: SecretBox,
  apiKey: string,
): Promise<{ secret: string; userId: string } | undefined> {
  const credential = await ApiCredential.query(db).findOne({ api_key: apiKey }).whereNull('revoked_at');
  if (!credential) return undefined;
  return { secret: box.open(credential.secret_ciphertext), userId: credential.user_id };
}
