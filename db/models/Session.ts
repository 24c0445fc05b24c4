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
}
