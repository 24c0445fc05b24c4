import type { Knex } from 'knex';

/** Tables of rows about one media item: their writes change an answer that reads clustered media only when the item is clustered. */
const ROWS_OF_MEDIA = ['media_issues', 'media_labels', 'media_tags'];
/** Tables no answer over clustered images reads (objects and uploaded anchors: object pages and visual searches only). */
const NOT_READ_BY_IMAGE_PAGES = ['media_objects', 'search_anchors'];
/** At most this many rows of unclustered media a transaction has looked up before it counts as a change to clustered media. */
const LOOKUPS = 1000;

/**
 * A second generation beside `n` (docs/decisions.md "Explore remembers its answers until anything it reads changes"):
 * `n_clustered` grows with the commits that wrote rows an image page without ranking can read, which reads clustered
 * media only (a media row with `cluster_ids`, and its issues, labels and tags), and skips those that only added or
 * marked media not clustered yet, as an add_media batch does until it places them, or wrote objects or anchors.
 * `n` still counts every commit: ranked answers read the vector searches, whose nearest 1,000 new media can enter.
 *
 * The media rows are judged row by row, before each is written (`BEFORE … FOR EACH ROW WHEN`, so a row of unclustered
 * media costs one comparison and nothing is copied): an update sees the newest version of its row, so a write racing a
 * placement of the same row sees it clustered. A row of issues, labels or tags looks its media row up `FOR SHARE`: a
 * placement of that item then waits for the writer's commit (or the lookup sees it placed). After the first counted
 * row of a transaction every other is skipped by the WHEN; a transaction looks up at most LOOKUPS rows of unclustered
 * media before it counts as a change anyway (a bulk import of labels before any analysis).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE explore_changes ADD COLUMN n_clustered bigint');
  await knex.raw('UPDATE explore_changes SET n_clustered = n');
  await knex.raw('ALTER TABLE explore_changes ALTER COLUMN n_clustered SET NOT NULL');
  // explore.changed: '' nothing counted yet in this transaction, 'every' counted in n, 'clustered' counted in both.
  await knex.raw(`
    CREATE FUNCTION note_explore_change_of(clustered boolean) RETURNS void AS $$
    DECLARE
      noted text := coalesce(current_setting('explore.changed', true), '');
      mine bigint;
    BEGIN
      IF noted = 'clustered' OR (noted = 'every' AND NOT clustered) THEN
        RETURN;
      END IF;
      PERFORM set_config('explore.changed', CASE WHEN clustered THEN 'clustered' ELSE 'every' END, true);
      INSERT INTO explore_changes (n, n_clustered) VALUES (CASE WHEN noted = 'every' THEN 0 ELSE 1 END, CASE WHEN clustered THEN 1 ELSE 0 END)
        RETURNING id INTO mine;
      IF mine % 128 = 0 AND current_setting('transaction_isolation') = 'read committed' THEN
        WITH gone AS (
          DELETE FROM explore_changes
          WHERE id IN (SELECT id FROM explore_changes WHERE id < mine FOR UPDATE SKIP LOCKED)
          RETURNING n, n_clustered)
        INSERT INTO explore_changes (n, n_clustered) SELECT sum(n), sum(n_clustered) FROM gone HAVING count(*) > 0;
      END IF;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION note_explore_change() RETURNS trigger AS $$
    BEGIN
      PERFORM note_explore_change_of(true);
      RETURN NULL;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`
    CREATE FUNCTION note_unclustered_explore_change() RETURNS trigger AS $$
    BEGIN
      PERFORM note_explore_change_of(false);
      RETURN NULL;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`
    CREATE FUNCTION note_clustered_media_change() RETURNS trigger AS $$
    BEGIN
      PERFORM note_explore_change_of(true);
      IF TG_OP = 'DELETE' THEN
        RETURN OLD;
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`
    CREATE FUNCTION note_change_of_media(version uuid, item uuid) RETURNS void AS $$
    DECLARE
      looked_up int := coalesce(nullif(current_setting('explore.unclustered_lookups', true), ''), '0')::int;
      clustered boolean;
    BEGIN
      IF current_setting('explore.changed', true) = 'clustered' THEN
        RETURN;
      END IF;
      IF looked_up < ${LOOKUPS} THEN
        PERFORM set_config('explore.unclustered_lookups', (looked_up + 1)::text, true);
        SELECT m.cluster_ids IS NOT NULL INTO clustered FROM media m WHERE m.version_id = version AND m.id = item FOR SHARE;
      END IF;
      -- Past the lookups, or a media row not found (deleted in this transaction): counted as clustered.
      PERFORM note_explore_change_of(clustered IS DISTINCT FROM false);
    END $$ LANGUAGE plpgsql`);
  await knex.raw(`
    CREATE FUNCTION note_media_row_change() RETURNS trigger AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN
        PERFORM note_change_of_media(OLD.version_id, OLD.media_id);
      END IF;
      IF TG_OP <> 'DELETE' THEN
        PERFORM note_change_of_media(NEW.version_id, NEW.media_id);
        RETURN NEW;
      END IF;
      RETURN OLD;
    END $$ LANGUAGE plpgsql`);
  const unnoted = `current_setting('explore.changed', true) IS DISTINCT FROM 'clustered'`;
  for (const table of ['media', ...ROWS_OF_MEDIA, ...NOT_READ_BY_IMAGE_PAGES]) {
    await knex.raw(`DROP TRIGGER ${table}_explore_change ON ${table}`);
    await knex.raw(`CREATE TRIGGER ${table}_explore_change AFTER INSERT OR UPDATE OR DELETE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION note_unclustered_explore_change()`);
    await knex.raw(`CREATE TRIGGER ${table}_explore_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION note_explore_change()`);
  }
  const mediaRow = (event: string, when: string) =>
    knex.raw(`CREATE TRIGGER media_explore_${event.toLowerCase()}_clustered BEFORE ${event} ON media
      FOR EACH ROW WHEN ((${when}) AND ${unnoted}) EXECUTE FUNCTION note_clustered_media_change()`);
  await mediaRow('INSERT', 'NEW.cluster_ids IS NOT NULL');
  await mediaRow('UPDATE', 'OLD.cluster_ids IS NOT NULL OR NEW.cluster_ids IS NOT NULL');
  await mediaRow('DELETE', 'OLD.cluster_ids IS NOT NULL');
  for (const table of ROWS_OF_MEDIA) {
    await knex.raw(`CREATE TRIGGER ${table}_explore_clustered BEFORE INSERT OR UPDATE OR DELETE ON ${table}
      FOR EACH ROW WHEN (${unnoted}) EXECUTE FUNCTION note_media_row_change()`);
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ROWS_OF_MEDIA) await knex.raw(`DROP TRIGGER ${table}_explore_clustered ON ${table}`);
  for (const event of ['insert', 'update', 'delete']) await knex.raw(`DROP TRIGGER media_explore_${event}_clustered ON media`);
  for (const table of ['media', ...ROWS_OF_MEDIA, ...NOT_READ_BY_IMAGE_PAGES]) {
    await knex.raw(`DROP TRIGGER ${table}_explore_truncate ON ${table}`);
    await knex.raw(`DROP TRIGGER ${table}_explore_change ON ${table}`);
    await knex.raw(`CREATE TRIGGER ${table}_explore_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION note_explore_change()`);
  }
  await knex.raw('DROP FUNCTION note_media_row_change()');
  await knex.raw('DROP FUNCTION note_change_of_media(uuid, uuid)');
  await knex.raw('DROP FUNCTION note_clustered_media_change()');
  await knex.raw('DROP FUNCTION note_unclustered_explore_change()');
  await knex.raw(`
    CREATE OR REPLACE FUNCTION note_explore_change() RETURNS trigger AS $$
    DECLARE
      mine bigint;
    BEGIN
      IF current_setting('explore.changed', true) = '1' THEN
        RETURN NULL;
      END IF;
      PERFORM set_config('explore.changed', '1', true);
      INSERT INTO explore_changes (n) VALUES (1) RETURNING id INTO mine;
      IF mine % 128 = 0 AND current_setting('transaction_isolation') = 'read committed' THEN
        WITH gone AS (
          DELETE FROM explore_changes
          WHERE id IN (SELECT id FROM explore_changes WHERE id < mine FOR UPDATE SKIP LOCKED)
          RETURNING n)
        INSERT INTO explore_changes (n) SELECT sum(n) FROM gone HAVING count(*) > 0;
      END IF;
      RETURN NULL;
    END $$ LANGUAGE plpgsql`);
  await knex.raw('DROP FUNCTION note_explore_change_of(boolean)');
  await knex.raw('ALTER TABLE explore_changes DROP COLUMN n_clustered');
}
