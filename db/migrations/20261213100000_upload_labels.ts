import type { Knex } from 'knex';

/**
 * Labels arrive with the files from a folder, a CSV or a COCO file (docs/decisions.md "Labels from a CSV or a COCO
 * file, through the folders' path"): each source resolves to a label (and a split) per received file, which ingestion
 * writes into the transaction's label (and split) field. Transactions made before keep labels from folders.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE upload_transactions ADD COLUMN labels_from text, ADD COLUMN split_field text;
    ALTER TABLE uploaded_files ADD COLUMN label text, ADD COLUMN split text;
    UPDATE upload_transactions SET labels_from = 'folder' WHERE label_field IS NOT NULL;
    UPDATE uploaded_files f SET label = f.folder FROM upload_transactions t WHERE t.id = f.transaction_id AND t.label_field IS NOT NULL AND f.folder IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE uploaded_files DROP COLUMN label, DROP COLUMN split;
    ALTER TABLE upload_transactions DROP COLUMN labels_from, DROP COLUMN split_field;
  `);
}
