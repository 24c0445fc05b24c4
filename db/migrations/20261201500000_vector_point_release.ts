import type { Knex } from 'knex';

/**
 * The storage collector also releases single vectors: a media item that left every version of its
 * lineage (added, then a restore went back to a snapshot without it) leaves its vector in collections
 * the lineage still reads. Candidates `vector_point` are keyed `<vector space id>/<media id>`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE storage_release_candidates DROP CONSTRAINT storage_release_candidates_kind_check;
    ALTER TABLE storage_release_candidates ADD CONSTRAINT storage_release_candidates_kind_check
      CHECK (kind IN ('blob', 'vector_space', 'vector_point', 'export_archive'));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM storage_release_candidates WHERE kind = 'vector_point';
    ALTER TABLE storage_release_candidates DROP CONSTRAINT storage_release_candidates_kind_check;
    ALTER TABLE storage_release_candidates ADD CONSTRAINT storage_release_candidates_kind_check
      CHECK (kind IN ('blob', 'vector_space', 'export_archive'));
  `);
}
