import { z } from 'zod';
import { DATASET_STATUSES, type DatasetStatus } from '../../lib/datasetStates';
import type { DatasetRow } from '../../db/repositories/datasets';
import { isoTime, timestamp } from './time';

const LEGACY_STATUSES = ['READY', 'UPDATING', 'UPLOADING', 'ERROR'] as const;

/** The retiring `status` field, derived from `status_new` so the two can never disagree. */
export function legacyStatus(status: DatasetStatus): (typeof LEGACY_STATUSES)[number] {
  switch (status) {
    case 'READY':
    case 'PARTIAL INDEX':
      return 'READY';
    case 'READ ONLY':
    case 'INDEXING':
      return 'UPDATING';
    case 'UPLOADING':
      return 'UPLOADING';
    case 'ERROR':
      return 'ERROR';
  }
}

export const datasetSchema = z
  .object({
    id: z.uuid(),
    display_name: z.string(),
    status: z.enum(LEGACY_STATUSES).meta({ description: 'Retiring: derived from status_new' }),
    status_new: z.enum(DATASET_STATUSES),
    progress: z.number().int(),
    owned_by: z.string().meta({ description: "The owner's email" }),
    created_at: timestamp,
    n_images: z.number().int(),
    n_videos: z.number().int(),
  })
  .meta({ id: 'Dataset' });

export function presentDataset(row: DatasetRow): z.output<typeof datasetSchema> {
  return {
    id: row.id,
    display_name: row.display_name,
    status: legacyStatus(row.status_new),
    status_new: row.status_new,
    progress: row.progress,
    owned_by: row.owner_email,
    created_at: isoTime(row.created_at),
    n_images: row.n_images,
    n_videos: row.n_videos,
  };
}
