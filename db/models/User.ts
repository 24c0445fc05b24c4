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
  /** The identity provider's subject once the user logged in through OIDC (or was created there). */
  idp_subject!: string | null;
  created_at!: Date;
  updated_at!: Date | null;
}
