import { z } from 'zod';
import type { SnapshotRow } from '../../db/repositories/snapshots';
import { isoTime, timestamp } from './time';

export const snapshotSchema = z
  .object({
    snapshot_id: z.uuid(),
    snapshot_name: z.string(),
    source_dataset_name: z.string(),
    created_at: timestamp,
    created_by: z.string().nullable().meta({ description: 'Email of the creator (null when that user no longer exists)' }),
    n_images: z.number().int(),
    n_videos: z.number().int(),
    description: z.string(),
    reason: z.enum(['manual', 'creation', 'clone']),
    training_model_id: z.uuid().nullable(),
    training_model_name: z.string().nullable(),
    is_current: z.boolean(),
    is_restoring: z.boolean(),
  })
  .meta({ id: 'Snapshot' });

export function presentSnapshot(snapshot: SnapshotRow): z.output<typeof snapshotSchema> {
  return {
    snapshot_id: snapshot.id,
    snapshot_name: snapshot.name,
    source_dataset_name: snapshot.source_dataset_name,
    created_at: isoTime(snapshot.created_at),
    created_by: snapshot.created_by_email,
    n_images: snapshot.n_images,
    n_videos: snapshot.n_videos,
    description: snapshot.description,
    reason: snapshot.reason,
    training_model_id: null,
    training_model_name: null,
    is_current: snapshot.is_current,
    is_restoring: snapshot.is_restoring,
  };
}
