import { z } from 'zod';
import type { MediaListingRow } from '../../db/repositories/media';
import { isoTime, timestamp } from './time';

export const mediaItemSchema = z
  .object({
    media_id: z.uuid(),
    file_name: z.string(),
    kind: z.enum(['IMAGE', 'VIDEO', 'VIDEO_FRAME']),
    video_id: z.uuid().nullable().meta({ description: 'The video a frame was taken from; null for images and videos' }),
    class: z.string().nullable().meta({ description: 'The user’s own label: the value of the declared label field (GET …/classes)' }),
    size_bytes: z.number().int().nullable(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    discarded: z.boolean().meta({ description: 'A copy a duplicate review discarded (exports leave it out unless asked)' }),
    created_at: timestamp,
  })
  .meta({ id: 'MediaItem' });

export function presentMediaItem(row: MediaListingRow): z.output<typeof mediaItemSchema> {
  return {
    media_id: row.id,
    file_name: row.file_name,
    kind: row.kind,
    video_id: row.parent_id,
    class: row.class,
    size_bytes: row.size_bytes,
    width: row.width,
    height: row.height,
    discarded: row.discarded,
    created_at: isoTime(row.created_at),
  };
}
