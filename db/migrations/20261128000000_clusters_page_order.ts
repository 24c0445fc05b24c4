import type { Knex } from 'knex';

/**
 * Explore pages a version's clusters at one threshold by size, biggest first, then by id. Sizes tie
 * for most clusters (at the strictest threshold nearly all are single images), so an index on size
 * alone made every page sort all of them (100,000 media: 60-110 ms a page); with the id in the
 * index a page is read in order and the scan stops after it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX clusters_version_threshold_page ON clusters (version_id, threshold, size DESC, id)');
  await knex.raw('DROP INDEX clusters_version_threshold_size');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('CREATE INDEX clusters_version_threshold_size ON clusters (version_id, threshold, size)');
  await knex.raw('DROP INDEX clusters_version_threshold_page');
}
