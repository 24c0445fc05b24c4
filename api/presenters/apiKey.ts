import { z } from 'zod';
import type { ApiKeyRow } from '../../db/repositories/apiCredentials';
import { isoTime, timestamp } from './time';

export const API_KEY_STATUSES = ['active', 'expired', 'revoked'] as const;

export const apiKeySchema = z
  .object({
    api_key: z.string(),
    created_at: timestamp,
    last_used_at: timestamp.nullable().meta({ description: 'Last request with a token of this key (to the minute); null if never used' }),
    expires_at: timestamp.nullable().meta({ description: 'Null: the key never expires' }),
    revoked_at: timestamp.nullable(),
    status: z.enum(API_KEY_STATUSES).meta({ description: 'revoked wins over expired' }),
  })
  .meta({ id: 'ApiKey' });

export function presentApiKey(row: ApiKeyRow, now = new Date()): z.output<typeof apiKeySchema> {
  const status = row.revoked_at ? 'revoked' : row.expires_at && row.expires_at <= now ? 'expired' : 'active';
  return {
    api_key: row.api_key,
    created_at: isoTime(row.created_at),
    last_used_at: isoTime(row.last_used_at),
    expires_at: isoTime(row.expires_at),
    revoked_at: isoTime(row.revoked_at),
    status,
  };
}
