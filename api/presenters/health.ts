import { z } from 'zod';
import type { Health } from '../../services/health';

const check = z.object({ ok: z.boolean(), error: z.string().optional() });

export const healthSchema = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    detail: z.string().optional().meta({ description: 'Set when unavailable' }),
    postgres: check,
    temporal: check.extend({
      workers: z.record(z.string(), z.number().int()).optional().meta({ description: 'Pollers per task queue: 0 means no worker serves it' }),
    }),
  })
  .meta({ id: 'Health' });

export function presentHealth(health: Health): z.output<typeof healthSchema> {
  return {
    status: health.ok ? 'ok' : 'unavailable',
    ...(health.ok ? {} : { detail: 'A required service is unavailable' }),
    postgres: health.postgres,
    temporal: health.temporal,
  };
}
