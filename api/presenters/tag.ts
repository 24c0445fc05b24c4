import { z } from 'zod';
import type { TagRow } from '../../db/repositories/tags';
import { isoTime, timestamp } from './time';

export const tagSchema = z
  .object({ id: z.uuid(), name: z.string(), created_at: timestamp, n_media: z.number().int() })
  .meta({ id: 'Tag' });

export function presentTag(tag: TagRow): z.output<typeof tagSchema> {
  return { id: tag.id, name: tag.name, created_at: isoTime(tag.created_at), n_media: tag.n_media };
}
