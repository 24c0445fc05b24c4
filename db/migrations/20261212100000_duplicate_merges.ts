import type { Knex } from 'knex';

/**
 * Duplicate decisions remember what resolving them changed: `merged` on a keeper's row holds the labels, tags and
 * custom metadata it gained from the discarded copies and the conflicts left to the curator, so an undo takes back
 * exactly those; `action_id` names the Accept all that made a decision, so the whole action is undone at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE duplicate_decisions ADD COLUMN merged jsonb, ADD COLUMN action_id uuid;
    CREATE INDEX duplicate_decisions_version_action ON duplicate_decisions (version_id, action_id) WHERE action_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX duplicate_decisions_version_action; ALTER TABLE duplicate_decisions DROP COLUMN merged, DROP COLUMN action_id');
}
