import type { Knex } from 'knex';

/**
 * Labels at creation (issue 27): the folder an uploaded file was sent from (its parent folder's name,
 * `cats` for `cats/1.jpg`), and the custom-metadata field a creation transaction records it in when
 * process_files was asked for `labels_from=folder` (null: no labels from folders).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('uploaded_files', (t) => t.text('folder'));
  await knex.schema.alterTable('upload_transactions', (t) => t.text('label_field'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('upload_transactions', (t) => t.dropColumn('label_field'));
  await knex.schema.alterTable('uploaded_files', (t) => t.dropColumn('folder'));
}
