import { z } from 'zod';
import type { NotificationRow } from '../../db/repositories/notifications';
import { isoTime, timestamp } from './time';

export const notificationSchema = z
  .object({
    id: z.uuid(),
    user_id: z.uuid(),
    entity_type: z.string(),
    entity_id: z.uuid().nullable(),
    title: z.string(),
    message: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    dataset_id: z.uuid().nullable(),
    created_at: timestamp,
    read_at: timestamp.nullable(),
  })
  .meta({ id: 'Notification' });

export function presentNotification(row: NotificationRow): z.output<typeof notificationSchema> {
  return {
    id: row.id,
    user_id: row.user_id,
    entity_type: row.entity_type,
    entity_id: row.entity_id,
    title: row.title,
    message: row.message,
    metadata: row.metadata,
    dataset_id: row.dataset_id,
    created_at: isoTime(row.created_at),
    read_at: isoTime(row.read_at),
  };
}
