import type { Db } from '../../db/connection';
import { headVersion } from '../../db/repositories/versions';

/** The version a dataset's rows live in now, for tests that look at the tables directly. */
export async function headVersionId(db: Db, datasetId: string): Promise<string> {
  return (await headVersion(db, datasetId)).id;
}
