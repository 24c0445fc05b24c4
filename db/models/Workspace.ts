import { Model } from 'objection';

export type WorkspaceRole = 'admin' | 'editor' | 'viewer';

export class Workspace extends Model {
  static tableName = 'workspaces';
  id!: string;
  organization_id!: string;
  name!: string;
  created_at!: Date;
  updated_at!: Date | null;
}

export class WorkspaceMember extends Model {
  static tableName = 'workspace_members';
  static idColumn = ['workspace_id', 'user_id'];
  workspace_id!: string;
  user_id!: string;
  role!: WorkspaceRole;
  created_at!: Date;
}
