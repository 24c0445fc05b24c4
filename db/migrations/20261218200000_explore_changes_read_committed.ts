import type { Knex } from 'knex';

const noteExploreChange = (compaction: string) => `
  CREATE OR REPLACE FUNCTION note_explore_change() RETURNS trigger AS $$
  DECLARE
    mine bigint;
  BEGIN
    IF current_setting('explore.changed', true) = '1' THEN
      RETURN NULL;
    END IF;
    PERFORM set_config('explore.changed', '1', true);
    INSERT INTO explore_changes (n) VALUES (1) RETURNING id INTO mine;
    IF ${compaction} THEN
      WITH gone AS (
        DELETE FROM explore_changes
        WHERE id IN (SELECT id FROM explore_changes WHERE id < mine FOR UPDATE SKIP LOCKED)
        RETURNING n)
      INSERT INTO explore_changes (n) SELECT sum(n) FROM gone HAVING count(*) > 0;
    END IF;
    RETURN NULL;
  END $$ LANGUAGE plpgsql`;

/**
 * The fold of `explore_changes` (migration 20261218100000) only in READ COMMITTED transactions: in a snapshot
 * transaction (a version copy is one), deleting a row another fold deleted since the snapshot is a serialization
 * failure, which would fail the copy. Such writers add their row and leave the fold to others.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(noteExploreChange(`mine % 128 = 0 AND current_setting('transaction_isolation') = 'read committed'`));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(noteExploreChange('mine % 128 = 0'));
}
