import type { Knex } from 'knex';

/**
 * A version's clusters and memberships belong to a clustering (`dataset_versions.clustering_id`)
 * that copies of the version share instead of copying: at 1,000,000 media a copy re-inserted five
 * million memberships and 1.5 million clusters. Existing rows keep their key: each version's
 * clustering id is its own version id. A clustering no version references is removed with the last
 * version that did (releaseClusterings), so clusters no longer cascade from a version.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE dataset_versions ADD COLUMN clustering_id uuid');
  await knex.raw('UPDATE dataset_versions SET clustering_id = id');
  await knex.raw('ALTER TABLE dataset_versions ALTER COLUMN clustering_id SET NOT NULL');
  await knex.raw('CREATE INDEX dataset_versions_clustering ON dataset_versions (clustering_id)');
  await knex.raw('DROP TRIGGER dataset_versions_memberships ON dataset_versions');
  await knex.raw('DROP FUNCTION delete_version_memberships()');
  const { rows } = await knex.raw(
    `SELECT conname FROM pg_constraint WHERE conrelid = 'clusters'::regclass AND confrelid = 'dataset_versions'::regclass AND contype = 'f'`,
  );
  for (const { conname } of rows as Array<{ conname: string }>) await knex.raw(`ALTER TABLE clusters DROP CONSTRAINT "${conname}"`);
  await knex.raw('ALTER TABLE clusters RENAME COLUMN version_id TO clustering_id');
  await knex.raw('ALTER TABLE cluster_members RENAME COLUMN version_id TO clustering_id');
}

export async function down(): Promise<void> {
  throw new Error('shared clusterings cannot be undone: restore a database backup taken before it');
}
