import type { DatasetStatus } from '../../db/models';
import type { DatasetRow } from '../../db/repositories/datasets';
import { isoTime } from './time';

/** The retiring `status` field, derived from `status_new` so the two can never disagree. */
export function legacyStatus(status: DatasetStatus): string {
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

export function presentDataset(row: DatasetRow) {
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
