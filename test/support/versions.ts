import type { Db } from '../../db/connection';
import { headVersion } from '../../db/repositories/versions';

/** The version a dataset's rows live in now, for tests that look at the tables directly. */
export async function headVersionId(db: Db, datasetId: string): Promise<string> {
  return (await headVersion(db, datasetId)).id;
}

/** The ids of a dataset's head media, by file name. */
export async function headMediaIdsByName(db: Db, datasetId: string): Promise<Map<string, string>> {
  const rows: Array<{ id: string; file_name: string }> = await db('media as m')
    .join('datasets as d', 'd.head_version_id', 'm.version_id')
    .where('d.id', datasetId)
    .select('m.id', 'm.file_name');
  return new Map(rows.map((row) => [row.file_name, row.id]));
}
