import { z } from 'zod';
import type { MediaFactsRow } from '../../db/repositories/media';

export const mediaFactsSchema = z
  .object({
    media_id: z.uuid(),
    kind: z.enum(['IMAGE', 'VIDEO', 'VIDEO_FRAME']),
    file_name: z.string(),
    size_bytes: z.number().int(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    caption: z.string().nullable(),
    labels: z.array(z.string()),
    tags: z.array(z.object({ id: z.uuid(), name: z.string() })),
    issues: z.array(z.string()).meta({ description: 'Quality issues found at indexing: duplicates, outliers, blur, dark, bright, broken' }),
  })
  .meta({ id: 'MediaFacts' });

export function presentMediaFacts(row: MediaFactsRow): z.output<typeof mediaFactsSchema> {
  return {
    media_id: row.id,
    kind: row.kind,
    file_name: row.file_name,
    size_bytes: row.size_bytes,
    width: row.width,
    height: row.height,
    caption: row.caption,
    labels: row.labels,
    tags: row.tags,
    issues: row.issues,
  };
}
