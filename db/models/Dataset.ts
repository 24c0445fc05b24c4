import { Model } from 'objection';

export const DATASET_STATUSES = ['UPLOADING', 'INDEXING', 'READY', 'READ ONLY', 'PARTIAL INDEX', 'ERROR'] as const;
export type DatasetStatus = (typeof DATASET_STATUSES)[number];
export type DatasetRole = 'owner' | 'editor' | 'viewer';

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
