import type { Db } from '../connection';

/**
 * Updates many rows of a version-owned table in one statement: `rows` travel as one JSON array
 * (any number of them, one round trip), read as records with `columns` (name → SQL type) beside
 * their `id`, and `set` assigns from them (`t` is the table, `r` the record).
 */
export async function updateVersionRows(
  db: Db,
  table: 'media' | 'media_objects',
  versionId: string,
  columns: Record<string, string>,
  set: string,
  rows: Array<{ id: string }>,
): Promise<void> {
  if (rows.length === 0) return;
  const record = Object.entries(columns).map(([name, type]) => `${name} ${type}`).join(', ');
  await db.raw(`UPDATE ${table} t SET ${set} FROM jsonb_to_recordset(?::jsonb) AS r(id uuid, ${record}) WHERE t.version_id = ? AND t.id = r.id`, [
    JSON.stringify(rows),
    versionId,
  ]);
}
