import { Model } from 'objection';

export class User extends Model {
  static tableName = 'users';
  id!: string;
  email!: string;
  username!: string;
  first_name!: string | null;
  last_name!: string | null;
  password_hash!: string | null;
  enabled!: boolean;
  realm_roles!: string[];
  created_at!: Date;
  updated_at!: Date | null;
}
