import path from 'node:path';
import { createDb, migrateLatest, type Db } from '../../db/connection';
import { dropUnusedVersions } from '../../db/repositories/versions';
import { createTestDatabase } from '../support/testStack';

const migrations = { directory: path.join(__dirname, '..', '..', 'db', 'migrations'), loadExtensions: ['.ts'] };
const VERSIONS_MIGRATION = '20261126100000_dataset_versions.ts';

/** A database at the schema just before dataset versions, holding one indexed dataset. */
async function legacyDatabase(db: Db) {
  for (;;) {
    const [, pending] = (await db.migrate.list(migrations)) as [unknown, Array<{ file: string }>];
    if (pending[0]?.file === VERSIONS_MIGRATION) break;
    await db.migrate.up(migrations);
  }
  const [{ id: organizationId }] = await db('organizations').insert({ name: 'o' }).returning('id');
  const [{ id: workspaceId }] = await db('workspaces').insert({ organization_id: organizationId, name: 'w' }).returning('id');
  const [{ id: userId }] = await db('users').insert({ email: 'legacy@example.com', username: 'legacy' }).returning('id');
  const [{ id: datasetId }] = await db('datasets')
    .insert({ workspace_id: workspaceId, display_name: 'legacy', status_new: 'READY', owner_id: userId, neighbour_stats: JSON.stringify({ mean: 0.5, std: 0.1 }) })
    .returning('id');
  const batchId = '00000000-0000-4000-8000-000000000001';
  const media = await db('media')
    .insert(['a.jpg', 'b.jpg', 'c.jpg'].map((name, i) => ({ dataset_id: datasetId, kind: 'IMAGE', batch_id: batchId, file_name: name, blob_sha256: `${i}`, embedded: true, caption: i === 0 ? 'a cat' : null, caption_embedded: i === 0, uniqueness_score: [0.5, 0.9, null][i] })))
    .returning('id');
  const [{ id: clusterId }] = await db('clusters').insert({ dataset_id: datasetId, threshold: 0, n_images: 3, n_videos: 0, n_frames: 0, size: 3 }).returning('id');
  await db('cluster_members').insert(media.map((m: { id: string }) => ({ dataset_id: datasetId, threshold: 0, media_id: m.id, cluster_id: clusterId })));
  await db('media_issues').insert({ media_id: media[1].id, dataset_id: datasetId, issue_type: 'dark', confidence: 0.9 });
  await db('media_labels').insert({ media_id: media[2].id, dataset_id: datasetId, label: 'dog', source: 'custom' });
  const [{ id: tagId }] = await db('tags').insert({ dataset_id: datasetId, name: 'keep' }).returning('id');
  await db('media_tags').insert({ media_id: media[0].id, tag_id: tagId, dataset_id: datasetId });
  return { datasetId, mediaIds: media.map((m: { id: string }) => m.id), clusterId, tagId };
}

describe('the dataset-versions migration on an existing database', () => {
  it('moves every row of a dataset into its first version and loses nothing', async () => {
    const database = await createTestDatabase({ empty: true });
    const db = createDb(database.url, 2);
    try {
      const legacy = await legacyDatabase(db);
      await migrateLatest(db);

      const dataset = await db('datasets').where({ id: legacy.datasetId }).first();
      const version = await db('dataset_versions').where({ id: dataset.head_version_id }).first();
      expect(version).toMatchObject({ dataset_id: legacy.datasetId, vector_space_id: legacy.datasetId, reason: 'initial', neighbour_stats: { mean: 0.5, std: 0.1 } });
      const owned = (table: string, key: Record<string, string> = { version_id: version.id }) => db(table).where(key).count({ n: '*' }).first().then((row) => Number(row!.n));
      expect(await owned('media')).toBe(3);
      // Clusters belong to the version's clustering (20261203300000), whose id is the version's own.
      expect(version.clustering_id).toBe(version.id);
      expect(await owned('clusters', { clustering_id: version.id })).toBe(1);
      expect(await owned('cluster_members', { clustering_id: version.id })).toBe(3);
      // The cluster keeps its previews (20261206100000), most unique first, an item without a score last.
      expect((await db('clusters').where({ clustering_id: version.id }).first('previews')).previews).toEqual([legacy.mediaIds[1], legacy.mediaIds[0], legacy.mediaIds[2]]);
      // Each media row keeps its clusters (20261210100000): this one at threshold 0 only.
      const kept = await db('media').where({ version_id: version.id }).orderBy('id').pluck('cluster_ids');
      expect(kept).toEqual(legacy.mediaIds.map(() => [legacy.clusterId, null, null, null, null]));
      expect(await owned('media_issues')).toBe(1);
      expect(await owned('media_labels')).toBe(1);
      expect(await owned('tags')).toBe(1);
      expect(await owned('media_tags')).toBe(1);
      // Ids are kept; the caption gets its content key and is embedded again under it.
      const cat = await db('media').where({ version_id: version.id, id: legacy.mediaIds[0] }).first();
      expect(cat).toMatchObject({ caption: 'a cat', caption_embedded: false, caption_key: expect.stringMatching(/^[0-9a-f-]{36}$/) });
      expect((await db('tags').where({ version_id: version.id }).first()).id).toBe(legacy.tagId);
      // The new keys hold: an issue must name media of its own version.
      await expect(
        db('media_issues').insert({ version_id: version.id, media_id: '00000000-0000-4000-8000-00000000dead', issue_type: 'dark', confidence: 1 }),
      ).rejects.toThrow(/foreign key/);
      // Dropping a version drops the clustering no other version reads, memberships too (they carry no row-level checks).
      await db('datasets').where({ id: legacy.datasetId }).update({ head_version_id: null });
      expect(await dropUnusedVersions(db, legacy.datasetId)).toBe(1);
      expect(await db('cluster_members').where({ clustering_id: version.id })).toEqual([]);
      expect(await db('clusters').where({ clustering_id: version.id })).toEqual([]);
      expect(await db('media').where({ version_id: version.id })).toEqual([]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
