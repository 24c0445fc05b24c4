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
    labels: z.array(z.string()).meta({ description: 'Labels a model gave (image tagging) or propagation wrote' }),
    class: z.string().nullable().meta({ description: 'The user’s own label: the value of the declared label field (GET …/classes)' }),
    tags: z.array(z.object({ id: z.uuid(), name: z.string() })),
    issues: z.array(z.string()).meta({ description: 'Quality issues: duplicates, outliers, blur, dark, bright, broken (indexing), mislabel, leakage (label quality)' }),
    mislabel: z
      .object({ label: z.string(), suggested_label: z.string(), score: z.number().meta({ description: '0-1: how likely the label is wrong' }) })
      .nullable()
      .meta({ description: 'Set when the label quality check flags the label as likely wrong' }),
    leakage: z
      .object({ split: z.string(), duplicate_of: z.uuid(), duplicate_split: z.string(), similarity: z.number() })
      .nullable()
      .meta({ description: 'Set when a near-duplicate of this image sits in another split' }),
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
    class: row.class,
    tags: row.tags,
    issues: row.issues,
    mislabel: (row.label_issues.mislabel as z.output<typeof mediaFactsSchema>['mislabel']) ?? null,
    leakage: (row.label_issues.leakage as z.output<typeof mediaFactsSchema>['leakage']) ?? null,
  };
}
