import { z } from 'zod';
import { DATASET_STATUSES, type DatasetStatus } from '../../lib/datasetStates';
import type { DatasetRow } from '../../db/repositories/datasets';
import { datasetOffers, OFFERED_OPERATIONS, type OfferedOperation } from '../../lib/datasetOffers';
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

const offerSchema = z
  .object({
    can_start: z.boolean(),
    refusal: z.string().nullable().meta({ description: 'Why not, as the refused request would answer (403 or 409); null when it may start' }),
  })
  .meta({ id: 'OperationOffer' });

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
    operations: z
      .object(Object.fromEntries((Object.keys(OFFERED_OPERATIONS) as OfferedOperation[]).map((operation) => [operation, offerSchema])) as Record<OfferedOperation, typeof offerSchema>)
      .meta({
        description:
          "Not in the contract (docs/decisions.md): whether each operation started from the dataset's pages may start now for the caller, " +
          'from the state machine (lib/datasetStates.ts) and the access policy (lib/accessPolicy.ts), and why not',
      }),
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
    operations: datasetOffers({ id: row.id, status: row.status_new }, row.access_role),
  };
}
