import { Model } from 'objection';

export class Session extends Model {
  static tableName = 'sessions';
  id!: string;
  user_id!: string;
  token_hash!: string;
  ip_address!: string | null;
  created_at!: Date;
  last_access_at!: Date;
  expires_at!: Date;
  /** The ID token of a session started by an OIDC login: the hint of the provider's logout. */
  id_token!: string | null;
}
