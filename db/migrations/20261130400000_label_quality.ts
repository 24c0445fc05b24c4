import type { Knex } from 'knex';

const TASK_TYPES_BEFORE = ['DATASET_CREATION', 'MEDIA_ADDITION', 'REINDEX', 'ENRICHMENT', 'CUSTOM_METADATA', 'SNAPSHOT_RESTORE', 'SNAPSHOT_CLONE', 'EXPORT', 'LABEL_PROPAGATION'];
const ISSUE_TYPES_BEFORE = ['duplicates', 'outliers', 'blur', 'dark', 'bright', 'broken'];

const quoted = (values: string[]) => values.map((value) => `'${value}'`).join(', ');

/**
 * Label quality (issue 27): a LABEL_QUALITY task type, the issue types mislabel and leakage, and the
 * version's label-quality report (with the custom-metadata fields it read), which copies keep.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE tasks DROP CONSTRAINT tasks_type_valid');
  await knex.raw(`ALTER TABLE tasks ADD CONSTRAINT tasks_type_valid CHECK (task_type IN (${quoted([...TASK_TYPES_BEFORE, 'LABEL_QUALITY'])}))`);
  await knex.raw('ALTER TABLE media_issues DROP CONSTRAINT media_issues_type_valid');
  await knex.raw(`ALTER TABLE media_issues ADD CONSTRAINT media_issues_type_valid CHECK (issue_type IN (${quoted([...ISSUE_TYPES_BEFORE, 'mislabel', 'leakage'])}))`);
  await knex.schema.alterTable('dataset_versions', (t) => t.jsonb('label_quality'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dataset_versions', (t) => t.dropColumn('label_quality'));
  await knex('media_issues').whereIn('issue_type', ['mislabel', 'leakage']).delete();
  await knex.raw('ALTER TABLE media_issues DROP CONSTRAINT media_issues_type_valid');
  await knex.raw(`ALTER TABLE media_issues ADD CONSTRAINT media_issues_type_valid CHECK (issue_type IN (${quoted(ISSUE_TYPES_BEFORE)}))`);
  await knex('tasks').where({ task_type: 'LABEL_QUALITY' }).delete();
  await knex.raw('ALTER TABLE tasks DROP CONSTRAINT tasks_type_valid');
  await knex.raw(`ALTER TABLE tasks ADD CONSTRAINT tasks_type_valid CHECK (task_type IN (${quoted(TASK_TYPES_BEFORE)}))`);
}
