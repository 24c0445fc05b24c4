import path from 'node:path';
import knex, { type Knex } from 'knex';

export type Db = Knex;

export interface DbTimeouts {
  /** How long opening one connection may take (pg `connectionTimeoutMillis`). */
  connectTimeoutMs: number;
  /** How long a query may wait for a free pooled connection, its opening included (knex `acquireConnectionTimeout`). */
  acquireTimeoutMs: number;
  /**
   * How long one query may wait for its answer (the API's; a worker's long transactions have none):
   * Postgres cancels a statement running longer, and the client gives up on a server that does not
   * answer at all (frozen), a little later.
   */
  queryTimeoutMs?: number;
}

// The defaults of DATABASE_CONNECT_TIMEOUT_SECONDS and DATABASE_ACQUIRE_TIMEOUT_SECONDS, for tools and tests.
const DEFAULT_TIMEOUTS: DbTimeouts = { connectTimeoutMs: 3000, acquireTimeoutMs: 5000 };

export function createDb(url: string, poolMax = 10, timeouts: DbTimeouts = DEFAULT_TIMEOUTS): Db {
  return knex({
    client: 'pg',
    // Bounded, so a database that is down or unreachable fails a query in seconds instead of hanging it.
    connection: {
      connectionString: url,
      connectionTimeoutMillis: timeouts.connectTimeoutMs,
      ...(timeouts.queryTimeoutMs ? { statement_timeout: timeouts.queryTimeoutMs, query_timeout: timeouts.queryTimeoutMs + 2000 } : {}),
    },
    acquireConnectionTimeout: timeouts.acquireTimeoutMs,
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
