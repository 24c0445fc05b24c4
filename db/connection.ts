import path from 'node:path';
import knex, { type Knex } from 'knex';

export type Db = Knex;

export function createDb(url: string, poolMax = 10): Db {
  return knex({
    client: 'pg',
    connection: url,
    pool: { min: 0, max: poolMax },
  });
}

/** Brings the schema to the latest version; knex's lock table makes concurrent callers safe. */
export async function migrateLatest(db: Db): Promise<void> {
  await db.migrate.latest({
    directory: path.join(__dirname, 'migrations'),
    // Runs from TypeScript sources (tsx, jest) and from the compiled build alike.
    loadExtensions: [path.extname(__filename)],
  });
}
