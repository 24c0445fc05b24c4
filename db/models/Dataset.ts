import { Model } from 'objection';

import type { DatasetStatus } from '../../lib/datasetStates';
import type { DatasetRole } from '../../lib/accessPolicy';

export { DATASET_STATUSES, type DatasetStatus } from '../../lib/datasetStates';
export type { DatasetRole } from '../../lib/accessPolicy';

export class Dataset extends Model {
  static tableName = 'datasets';
  id!: string;
  workspace_id!: string;
  display_name!: string;
  status_new!: DatasetStatus;
  progress!: number;
  owner_id!: string;
  n_images!: number;
  n_videos!: number;
  embedding_config!: Record<string, unknown> | null;
  head_version_id!: string | null;
  error_message!: string | null;
  created_at!: Date;
  updated_at!: Date;
}

export class DatasetMember extends Model {
  static tableName = 'dataset_members';
  static idColumn = ['dataset_id', 'user_id'];
  dataset_id!: string;
  user_id!: string;
  role!: DatasetRole;
  created_at!: Date;
}
