import type { Knex } from 'knex';

/** Tables of the embedded vector store, whose writes migration 20261218100000 counted among what Explore reads. */
const VECTOR_TABLES = ['vector_collections', 'vector_points'];

/**
 * Vector writes leave the generation of what Explore reads (docs/decisions.md "Explore remembers its answers until
 * anything it reads changes"): Qdrant's were never in Postgres, and every vector write is followed in its task by the
 * rows it is for (a media item's mark, objects, concept keys, placements), which count. Counting the embedded store's
 * own rows as well made an add_media batch forget Explore's answers nearly twice as often (16 commits against 9
 * for 40 images).
 */
export async function up(knex: Knex): Promise<void> {
  for (const table of VECTOR_TABLES) await knex.raw(`DROP TRIGGER ${table}_explore_change ON ${table}`);
}

export async function down(knex: Knex): Promise<void> {
  for (const table of VECTOR_TABLES) {
    await knex.raw(`CREATE TRIGGER ${table}_explore_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION note_explore_change()`);
  }
}
