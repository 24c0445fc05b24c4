import type { Knex } from 'knex';

/**
 * A label-quality check spread over workers (issue 27): each chunk of the version's labelled images
 * stores the neighbours it found among them, as knn_edges stores the analysis's (ordinals are places
 * in the labelled images by id), and the final step scores them all. Kept until the next check.
 */
export async function up(knex: Knex): Promise<void> {
  // knn_edges' columns, primary key and storage; LIKE copies no foreign key.
  await knex.raw('CREATE TABLE label_edges (LIKE knn_edges INCLUDING ALL)');
  await knex.raw('ALTER TABLE label_edges ADD FOREIGN KEY (version_id) REFERENCES dataset_versions (id) ON DELETE CASCADE');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('label_edges');
}
