import type { Knex } from 'knex';

/**
 * Dataset versions: a dataset points at its head version, and media, issues, labels, tags,
 * captions, custom metadata and clusters belong to a version. Rows are keyed by (version_id, id),
 * so a copy of a version keeps every id and is one INSERT … SELECT per table. Existing datasets get
 * one version each; their image vectors stay where they are (the version's vector space is the
 * dataset itself), caption vectors move to content-keyed collections and are embedded again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dataset_versions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('dataset_id').notNullable().references('datasets.id').onDelete('CASCADE');
    t.uuid('parent_version_id').references('dataset_versions.id').onDelete('SET NULL');
    // The dataset whose vector collections this version reads: copies share their source's vectors.
    t.uuid('vector_space_id').notNullable();
    t.text('reason').notNullable();
    // Mean and spread of the 5-NN similarity at the version's last full index (outliers of later batches).
    t.jsonb('neighbour_stats');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index('dataset_id');
  });
  await knex.raw(`ALTER TABLE dataset_versions ADD CONSTRAINT dataset_versions_reason_valid CHECK (reason IN ('initial', 'copy'))`);
  await knex.raw(`INSERT INTO dataset_versions (dataset_id, vector_space_id, reason, neighbour_stats, created_at)
    SELECT id, id, 'initial', neighbour_stats, created_at FROM datasets`);
  await knex.schema.alterTable('datasets', (t) => {
    t.uuid('head_version_id').references('dataset_versions.id').onDelete('SET NULL');
  });
  await knex.raw('UPDATE datasets d SET head_version_id = v.id FROM dataset_versions v WHERE v.dataset_id = d.id');
  await knex.schema.alterTable('datasets', (t) => t.dropColumn('neighbour_stats'));

  const owned = ['media', 'media_issues', 'media_labels', 'tags', 'media_tags', 'clusters', 'cluster_members'];
  for (const table of owned) {
    await knex.schema.alterTable(table, (t) => t.uuid('version_id'));
    await knex.raw(`UPDATE ${table} x SET version_id = d.head_version_id FROM datasets d WHERE d.id = x.dataset_id`);
    await knex.raw(`ALTER TABLE ${table} ALTER COLUMN version_id SET NOT NULL`);
  }
  // Keys become (version_id, id): drop the old ones (and the foreign keys that lean on them) first.
  for (const table of ['media', 'tags', 'clusters']) await knex.raw(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey CASCADE`);
  for (const table of ['media_issues', 'media_labels', 'media_tags']) await knex.raw(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey`);
  await knex.raw('DROP INDEX media_uploaded_file_frame');
  for (const table of owned) await knex.raw(`ALTER TABLE ${table} DROP COLUMN dataset_id CASCADE`);

  await knex.raw(`
    ALTER TABLE media ADD PRIMARY KEY (version_id, id),
      ADD FOREIGN KEY (version_id) REFERENCES dataset_versions (id) ON DELETE CASCADE,
      ADD FOREIGN KEY (version_id, parent_id) REFERENCES media (version_id, id) ON DELETE CASCADE;
    CREATE INDEX media_version_kind ON media (version_id, kind);
    CREATE INDEX media_version_batch ON media (version_id, batch_id);
    CREATE INDEX media_version_parent ON media (version_id, parent_id);
    CREATE UNIQUE INDEX media_uploaded_file_frame ON media (version_id, uploaded_file_id, frame_index) NULLS NOT DISTINCT
      WHERE uploaded_file_id IS NOT NULL;

    ALTER TABLE media_issues ADD PRIMARY KEY (version_id, media_id, issue_type),
      ADD FOREIGN KEY (version_id, media_id) REFERENCES media (version_id, id) ON DELETE CASCADE;
    CREATE INDEX media_issues_version_type ON media_issues (version_id, issue_type);

    ALTER TABLE media_labels ADD PRIMARY KEY (version_id, media_id, label),
      ADD FOREIGN KEY (version_id, media_id) REFERENCES media (version_id, id) ON DELETE CASCADE;
    CREATE INDEX media_labels_version_label ON media_labels (version_id, label);

    ALTER TABLE tags ADD PRIMARY KEY (version_id, id),
      ADD FOREIGN KEY (version_id) REFERENCES dataset_versions (id) ON DELETE CASCADE,
      ADD UNIQUE (version_id, name);

    ALTER TABLE media_tags ADD PRIMARY KEY (version_id, media_id, tag_id),
      ADD FOREIGN KEY (version_id, media_id) REFERENCES media (version_id, id) ON DELETE CASCADE,
      ADD FOREIGN KEY (version_id, tag_id) REFERENCES tags (version_id, id) ON DELETE CASCADE;
    CREATE INDEX media_tags_version_tag ON media_tags (version_id, tag_id);

    ALTER TABLE clusters ADD PRIMARY KEY (version_id, id),
      ADD FOREIGN KEY (version_id) REFERENCES dataset_versions (id) ON DELETE CASCADE;
    CREATE INDEX clusters_version_threshold_size ON clusters (version_id, threshold, size);

    ALTER TABLE cluster_members ADD PRIMARY KEY (version_id, threshold, media_id),
      ADD FOREIGN KEY (version_id, media_id) REFERENCES media (version_id, id) ON DELETE CASCADE,
      ADD FOREIGN KEY (version_id, cluster_id) REFERENCES clusters (version_id, id) ON DELETE CASCADE;
    CREATE INDEX cluster_members_version_cluster ON cluster_members (version_id, cluster_id);
  `);

  // Caption vectors are keyed by the caption's content, so versions that share a caption share its vector.
  await knex.raw('ALTER TABLE media ADD COLUMN caption_key uuid GENERATED ALWAYS AS (md5(caption)::uuid) STORED');
  await knex.raw('CREATE INDEX media_version_caption_key ON media (version_id, caption_key) WHERE caption_key IS NOT NULL');
  await knex.raw('UPDATE media SET caption_embedded = false WHERE caption IS NOT NULL');
  await knex.raw(`DELETE FROM vector_collections WHERE name LIKE 'captions\\_%'`);
}

export async function down(): Promise<void> {
  throw new Error('dataset_versions cannot be undone: restore a database backup taken before it');
}
