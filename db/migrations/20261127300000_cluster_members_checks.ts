import type { Knex } from 'knex';

/**
 * Cluster memberships are five rows per media item, and a version copy re-inserts all of them: the
 * two row-level foreign-key checks on them took two thirds of a copy's time (100,000 media: 25 s of
 * 38 s). Memberships are written only by the clustering repository, with the media and clusters of
 * the same version in the same transaction, so the checks go; a trigger on versions still removes a
 * version's memberships with it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE cluster_members DROP CONSTRAINT cluster_members_version_id_media_id_fkey');
  await knex.raw('ALTER TABLE cluster_members DROP CONSTRAINT cluster_members_version_id_cluster_id_fkey');
  await knex.raw(`
    CREATE FUNCTION delete_version_memberships() RETURNS trigger AS $$
    BEGIN
      DELETE FROM cluster_members WHERE version_id = OLD.id;
      RETURN OLD;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`CREATE TRIGGER dataset_versions_memberships BEFORE DELETE ON dataset_versions
    FOR EACH ROW EXECUTE FUNCTION delete_version_memberships()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER dataset_versions_memberships ON dataset_versions');
  await knex.raw('DROP FUNCTION delete_version_memberships()');
  await knex.raw(`ALTER TABLE cluster_members
    ADD FOREIGN KEY (version_id, media_id) REFERENCES media (version_id, id) ON DELETE CASCADE,
    ADD FOREIGN KEY (version_id, cluster_id) REFERENCES clusters (version_id, id) ON DELETE CASCADE`);
}
