import type { Knex } from 'knex';

/**
 * The dataset map: each embedded image's or frame's 2D position, owned by a version like clusters.
 * `point_index` is the point's place in the map's binary pages (0-based, dense after a full layout,
 * added media appended); `dataset_versions.map_layout_id` names the full layout the indexes belong to.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE map_points (
      version_id uuid NOT NULL,
      media_id uuid NOT NULL,
      point_index integer NOT NULL,
      x real NOT NULL,
      y real NOT NULL,
      PRIMARY KEY (version_id, media_id),
      UNIQUE (version_id, point_index),
      FOREIGN KEY (version_id, media_id) REFERENCES media (version_id, id) ON DELETE CASCADE
    );
    ALTER TABLE dataset_versions ADD COLUMN map_layout_id uuid;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE dataset_versions DROP COLUMN map_layout_id');
  await knex.schema.dropTableIfExists('map_points');
}
