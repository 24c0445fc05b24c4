import type { Knex } from 'knex';

/**
 * Enrichment. The image encoder's classifier head is read in the same forward pass as the embedding
 * (`media.predicted_classes`, top ImageNet classes), so tagging costs no second pass. `media.enriched`
 * lists the enrichment types already applied to a media row, so an interrupted enrichment resumes and
 * media added later are found. A version records the models applied to it (snapshots and copies keep
 * them); detected objects are version-owned rows like labels.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('media', (t) => {
    t.jsonb('predicted_classes');
    t.specificType('enriched', 'text[]').notNullable().defaultTo('{}');
    // Content key of the image's concept vector (MULTIMODEL_IMAGE_ENCODING): copies share vectors by content, as captions do.
    t.uuid('concept_key');
  });
  await knex.schema.alterTable('dataset_versions', (t) => {
    t.jsonb('enrichment_models').notNullable().defaultTo('{}');
  });
  await knex.schema.alterTable('datasets', (t) => {
    t.uuid('enrichment_context_id').notNullable().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('enriched_from_id');
  });
  await knex.raw(`
    CREATE TABLE media_objects (
      version_id uuid NOT NULL,
      id uuid NOT NULL DEFAULT gen_random_uuid(),
      media_id uuid NOT NULL,
      label text NOT NULL,
      confidence real NOT NULL,
      box_x real NOT NULL,
      box_y real NOT NULL,
      box_width real NOT NULL,
      box_height real NOT NULL,
      caption text,
      predicted_classes jsonb,
      PRIMARY KEY (version_id, id),
      FOREIGN KEY (version_id, media_id) REFERENCES media (version_id, id) ON DELETE CASCADE
    );
    CREATE INDEX media_objects_version_media ON media_objects (version_id, media_id);
    CREATE INDEX media_objects_version_label ON media_objects (version_id, label);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('media_objects');
  await knex.schema.alterTable('datasets', (t) => {
    t.dropColumn('enriched_from_id');
    t.dropColumn('enrichment_context_id');
  });
  await knex.schema.alterTable('dataset_versions', (t) => t.dropColumn('enrichment_models'));
  await knex.schema.alterTable('media', (t) => {
    t.dropColumn('concept_key');
    t.dropColumn('enriched');
    t.dropColumn('predicted_classes');
  });
}
