import type { Knex } from 'knex';

/**
 * Duplicate review decisions, owned by a version like tags: one row per decided media item, the
 * members decided together sharing a decision id. `keep` and `discard` settle a group of copies;
 * `distinct` says its members are not duplicates of each other. Snapshots and copies keep them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE duplicate_decisions (
      version_id uuid NOT NULL,
      media_id uuid NOT NULL,
      decision_id uuid NOT NULL,
      role text NOT NULL CHECK (role IN ('keep', 'discard', 'distinct')),
      decided_by uuid REFERENCES users (id) ON DELETE SET NULL,
      decided_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (version_id, media_id),
      FOREIGN KEY (version_id, media_id) REFERENCES media (version_id, id) ON DELETE CASCADE
    );
    CREATE INDEX duplicate_decisions_version_decision ON duplicate_decisions (version_id, decision_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('duplicate_decisions');
}
