import type { Knex } from 'knex';

/** Every table an Explore answer reads (cluster_facet_counts is left out: it holds counts the rows give again, and Explore writes it itself). */
export const EXPLORE_TABLES = [
  'media',
  'media_labels',
  'media_tags',
  'tags',
  'media_issues',
  'duplicate_decisions',
  'clusters',
  'cluster_members',
  'map_points',
  'media_objects',
  'dataset_versions',
  'search_anchors',
  'vector_collections',
  'vector_points',
];

/**
 * The generation of what Explore reads (docs/decisions.md "Explore remembers its answers until anything it reads
 * changes"): each transaction that writes one of EXPLORE_TABLES adds one row to `explore_changes`, so the sum of `n`
 * grows with every such commit and with nothing else. Inserts, never an update of one counter, so no writer waits
 * for another; a row in 128 folds the committed rows before it into one (SKIP LOCKED: never waiting either).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE TABLE explore_changes (id bigserial PRIMARY KEY, n bigint NOT NULL)');
  await knex.raw(`
    CREATE FUNCTION note_explore_change() RETURNS trigger AS $$
    DECLARE
      mine bigint;
    BEGIN
      IF current_setting('explore.changed', true) = '1' THEN
        RETURN NULL;
      END IF;
      PERFORM set_config('explore.changed', '1', true);
      INSERT INTO explore_changes (n) VALUES (1) RETURNING id INTO mine;
      IF mine % 128 = 0 THEN
        WITH gone AS (
          DELETE FROM explore_changes
          WHERE id IN (SELECT id FROM explore_changes WHERE id < mine FOR UPDATE SKIP LOCKED)
          RETURNING n)
        INSERT INTO explore_changes (n) SELECT sum(n) FROM gone HAVING count(*) > 0;
      END IF;
      RETURN NULL;
    END $$ LANGUAGE plpgsql`);
  for (const table of EXPLORE_TABLES) {
    await knex.raw(`CREATE TRIGGER ${table}_explore_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION note_explore_change()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of EXPLORE_TABLES) await knex.raw(`DROP TRIGGER ${table}_explore_change ON ${table}`);
  await knex.raw('DROP FUNCTION note_explore_change()');
  await knex.raw('DROP TABLE explore_changes');
}
