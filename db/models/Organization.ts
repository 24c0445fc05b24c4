import { Model } from 'objection';

export class Organization extends Model {
  static tableName = 'organizations';
  id!: string;
  name!: string;
  created_at!: Date;
  updated_at!: Date | null;
}
