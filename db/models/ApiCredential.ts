import { Model } from 'objection';

export class ApiCredential extends Model {
  static tableName = 'api_credentials';
  id!: string;
  user_id!: string;
  api_key!: string;
  secret_ciphertext!: string;
  created_at!: Date;
  last_used_at!: Date | null;
  revoked_at!: Date | null;
  /** Null: the key never expires. */
  expires_at!: Date | null;
}
