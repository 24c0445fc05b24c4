import type { Db } from '../../db/connection';

/** Every row of every table of the database, hashed per table: two equal fingerprints mean nothing was written. */
export async function databaseFingerprint(db: Db): Promise<Record<string, string>> {
  const tables = (await db('information_schema.tables')
    .where({ table_schema: 'public', table_type: 'BASE TABLE' })
    .orderBy('table_name')
    .pluck('table_name')) as string[];
  const fingerprint: Record<string, string> = {};
  for (const table of tables) {
    const { rows } = await db.raw('SELECT count(*)::int AS n, md5(coalesce(string_agg(t::text, \',\' ORDER BY t::text), \'\')) AS hash FROM ?? t', [table]);
    fingerprint[table] = `${rows[0].n}:${rows[0].hash}`;
  }
  return fingerprint;
}
