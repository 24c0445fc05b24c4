import { z } from 'zod';
import type { ViewRow } from '../../db/repositories/views';
import type { ViewTrend } from '../../services/views';
import { isoTime, timestamp } from './time';

export const viewSchema = z
  .object({
    id: z.uuid(),
    dataset_id: z.uuid(),
    name: z.string(),
    created_at: timestamp,
    created_by: z.object({ user_id: z.uuid(), email: z.string(), name: z.string() }),
    filters: z.object({
      entity_type: z.enum(['IMAGES', 'OBJECTS', 'VIDEOS']),
      threshold: z.string(),
      caption: z.string().nullable(),
      vql: z.array(z.unknown()),
    }),
    stats: z.object({ n_images: z.number().int(), n_objects: z.number().int(), n_video_frames: z.number().int() }),
    monitoring_enabled: z.boolean(),
    monitoring_started_at: timestamp,
    alerting_enabled: z.boolean(),
    total_results: z.number().int(),
    last_results: timestamp.nullable(),
  })
  .meta({ id: 'View' });

export function presentView(view: ViewRow): z.output<typeof viewSchema> {
  const name = [view.creator_first_name, view.creator_last_name].filter(Boolean).join(' ') || view.creator_email;
  return {
    id: view.id,
    dataset_id: view.dataset_id,
    name: view.name,
    created_at: isoTime(view.created_at),
    created_by: { user_id: view.created_by, email: view.creator_email, name },
    filters: view.filters,
    stats: view.stats,
    monitoring_enabled: view.monitoring_enabled,
    monitoring_started_at: isoTime(view.monitoring_started_at),
    alerting_enabled: view.alerting_enabled,
    total_results: view.total_results,
    last_results: isoTime(view.last_results),
  };
}

export const viewTrendSchema = z.object({
  points: z.array(z.object({ timestamp, batch_id: z.uuid(), count: z.number().int(), cumulative: z.number().int() })),
  total_results: z.number().int(),
  last_results: timestamp.nullable(),
});

export function presentTrend({ view, points }: ViewTrend): z.output<typeof viewTrendSchema> {
  return {
    points: points.map((point) => ({ ...point, timestamp: isoTime(point.timestamp) })),
    total_results: view.total_results,
    last_results: isoTime(view.last_results),
  };
}
