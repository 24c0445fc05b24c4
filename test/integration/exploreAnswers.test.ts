import { randomUUID } from 'node:crypto';
import { refreshExploreCopies } from '../../db/repositories/clusters';
import { createTag, tagMedia } from '../../db/repositories/tags';
import { applyLabel } from '../../db/repositories/labels';
import { requireDataset } from '../../services/datasetAccess';
import { decideDuplicates } from '../../services/duplicates';
import { exploreGenerations } from '../../db/repositories/exploreChanges';
import { createExploreAnswers } from '../../services/exploreAnswers';
import { startTestApi, type TestApi } from '../support/testStack';
import { emptyReadyVersion } from '../support/versions';

/**
 * Explore remembers its answers (services/exploreAnswers.ts) while nothing it reads changes: an equal request is
 * answered from memory, and right after each kind of write the answer is the new one.
 */
describe('Explore answers remembered until what they read changes (real Postgres)', () => {
  let api: TestApi;
  let datasetId: string;
  let versionId: string;
  let clusteringId: string;
  const clusters = [randomUUID(), randomUUID()];
  const media = Array.from({ length: 6 }, () => randomUUID());

  beforeAll(async () => {
    api = await startTestApi();
    const { db } = api.deps;
    ({ versionId, clusteringId } = await emptyReadyVersion(db, 'answers'));
    ({ dataset_id: datasetId } = await db('dataset_versions').where({ id: versionId }).first('dataset_id'));
    const batchId = randomUUID();
    await db('media').insert(
      media.map((id, i) => ({
        version_id: versionId, id, kind: 'IMAGE', batch_id: batchId, file_name: `m${i}.jpg`, blob_sha256: 'a'.repeat(64),
        uniqueness_score: i / 10, embedded: true, caption: `caption ${i}`,
      })),
    );
    // Cluster 0 holds four media, cluster 1 two: the plain page shows cluster 0 first.
    const clusterOf = (i: number) => clusters[i < 4 ? 0 : 1];
    await db('clusters').insert(clusters.map((id, c) => ({ clustering_id: clusteringId, id, threshold: 0, n_images: c === 0 ? 4 : 2, n_frames: 0, n_videos: 0, size: c === 0 ? 4 : 2 })));
    await db('cluster_members').insert(media.map((id, i) => ({ clustering_id: clusteringId, threshold: 0, media_id: id, cluster_id: clusterOf(i) })));
    await refreshExploreCopies(db, versionId, clusteringId, 'all');
  });
  afterAll(() => api.close());

  const explore = (query: Record<string, string | number> = {}) =>
    api.request.get(`/api/v1/explore/${datasetId}`).query({ entity_type: 'IMAGES', threshold: 0, ...query });
  const vql = (filters: unknown[]) => ({ vql: JSON.stringify(filters) });

  /** The answer now, asked twice: the second comes from memory and equals the first. */
  async function answer(query: Record<string, string | number> = {}) {
    const first = await explore(query).expect(200);
    const second = await explore(query).expect(200);
    expect(second.headers['x-explore-answer']).toBe('hit');
    expect(second.text).toBe(first.text);
    return first;
  }

  it('answers an equal request from memory, as JSON, and a different one anew', async () => {
    const first = await answer();
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(first.body.clusters.map((cluster: { cluster_id: string }) => cluster.cluster_id)).toEqual(clusters);
    expect((await explore({ page_number: 1 }).expect(200)).headers['x-explore-answer']).toBe('miss');
  });

  it('shows a tag right after it is written, and a renamed tag by its new name', async () => {
    const filter = (tagId: string) => vql([{ tags: { op: 'is', value: [tagId] } }]);
    const tag = (await createTag(api.deps.db, datasetId, 'picked', api.deps.defaultUser.id))!;
    expect((await answer(filter(tag.id))).body.clusters).toEqual([]);
    await tagMedia(api.deps.db, datasetId, tag.id, { mediaIds: [media[5]] });
    const tagged = (await answer(filter(tag.id))).body.clusters;
    expect(tagged.map((cluster: { cluster_id: string }) => cluster.cluster_id)).toEqual([clusters[1]]);
    expect(tagged[0].user_tags).toEqual([{ id: tag.id, name: 'picked' }]);
    await api.deps.db('tags').where({ id: tag.id }).update({ name: 'chosen' });
    expect((await answer(filter(tag.id))).body.clusters[0].user_tags).toEqual([{ id: tag.id, name: 'chosen' }]);
  });

  it('shows a label right after it is applied', async () => {
    const filter = vql([{ labels: { op: 'one_of', value: ['cat'] } }]);
    expect((await answer(filter)).body.clusters).toEqual([]);
    await applyLabel(api.deps.db, versionId, 'cat', 'user', [{ mediaId: media[0], confidence: 1 }]);
    expect((await answer(filter)).body.clusters.map((cluster: { cluster_id: string }) => cluster.cluster_id)).toEqual([clusters[0]]);
  });

  it('shows an issue right after it is found, and not after it is removed', async () => {
    const filter = vql([{ issues: { op: 'issue', value: 'blur', mode: 'in' } }]);
    expect((await answer(filter)).body.clusters).toEqual([]);
    await api.deps.db('media_issues').insert({ version_id: versionId, media_id: media[4], issue_type: 'blur', confidence: 0.9 });
    expect((await answer(filter)).body.clusters).toHaveLength(1);
    await api.deps.db('media_issues').where({ version_id: versionId, media_id: media[4] }).delete();
    expect((await answer(filter)).body.clusters).toEqual([]);
  });

  it('shows what a duplicate decision merged into the kept copy right after it is made', async () => {
    const { db, defaultUser } = api.deps;
    const filter = vql([{ labels: { op: 'one_of', value: ['dog'] } }]);
    await applyLabel(db, versionId, 'dog', 'user', [{ mediaId: media[2], confidence: 1 }]);
    const before = (await answer(filter)).body.clusters;
    expect(before[0].previews.map((preview: { media_id: string }) => preview.media_id)).toEqual([media[2]]);
    const dataset = await requireDataset(db, datasetId, defaultUser.id);
    await decideDuplicates(db, dataset, defaultUser, [{ mediaIds: [media[2], media[3]], verdict: 'duplicates', keep: [media[3]] }]);
    const after = (await answer(filter)).body.clusters;
    expect(after[0].previews.map((preview: { media_id: string }) => preview.media_id).sort()).toEqual([media[2], media[3]].sort());
  });

  it('refuses a caller who lost access right after the change, and answers again once it is given back', async () => {
    const { db, defaultUser } = api.deps;
    await answer();
    const membership = await db('dataset_members').where({ dataset_id: datasetId, user_id: defaultUser.id }).first();
    const dataset = await db('datasets').where({ id: datasetId }).first('workspace_id');
    const workspaceRole = await db('workspace_members').where({ workspace_id: dataset.workspace_id, user_id: defaultUser.id }).first('role');
    await db('dataset_members').where({ dataset_id: datasetId, user_id: defaultUser.id }).delete();
    await db('workspace_members').where({ workspace_id: dataset.workspace_id, user_id: defaultUser.id }).update({ role: 'viewer' });
    try {
      expect((await explore().expect(403)).headers['x-explore-answer']).toBeUndefined();
    } finally {
      await db('dataset_members').insert(membership);
      await db('workspace_members').where({ workspace_id: dataset.workspace_id, user_id: defaultUser.id }).update({ role: workspaceRole.role });
    }
    expect((await explore().expect(200)).headers['x-explore-answer']).toBe('hit');
  });

  it('shows a changed caption and a changed cluster order right after they are written', async () => {
    await answer();
    await api.deps.db('media').where({ version_id: versionId, id: media[0] }).update({ caption: 'a new caption' });
    const captions = (await answer()).body.clusters[0].captions;
    expect(captions).toContain('a new caption');
    await api.deps.db('clusters').where({ clustering_id: clusteringId, id: clusters[1] }).update({ size: 10 });
    expect((await answer()).body.clusters.map((cluster: { cluster_id: string }) => cluster.cluster_id)).toEqual([clusters[1], clusters[0]]);
    await api.deps.db('clusters').where({ clustering_id: clusteringId, id: clusters[1] }).update({ size: 2 });
  });

  it('reads the new head version and the dataset status at once, and keeps its answers while media are added', async () => {
    const { db } = api.deps;
    await answer();
    await db('datasets').where({ id: datasetId }).update({ status_new: 'UPLOADING' });
    expect((await explore().expect(409)).headers['x-explore-answer']).toBeUndefined();
    await db('datasets').where({ id: datasetId }).update({ status_new: 'READY' });
    const before = await answer();
    // While media are added the dataset is READ ONLY and Explore reads the same rows: the answer is still remembered.
    await db('datasets').where({ id: datasetId }).update({ status_new: 'READ ONLY' });
    const readOnly = await explore().expect(200);
    expect([readOnly.headers['x-explore-answer'], readOnly.text]).toEqual(['hit', before.text]);
    await db('datasets').where({ id: datasetId }).update({ status_new: 'READY' });
    // A new head version with no media (a restore or a clone points the dataset at another version).
    const [{ id: emptyVersion }] = await db('dataset_versions').insert({ id: randomUUID(), clustering_id: randomUUID(), dataset_id: datasetId, vector_space_id: datasetId, reason: 'initial' }).returning('id');
    await db('datasets').where({ id: datasetId }).update({ head_version_id: emptyVersion });
    expect((await answer()).body.clusters).toEqual([]);
    await db('datasets').where({ id: datasetId }).update({ head_version_id: versionId });
    expect((await answer()).body.clusters).toHaveLength(2);
  });

  it('counts each writing transaction once, folding its rows, in snapshot transactions too', async () => {
    const { db } = api.deps;
    const before = (await exploreGenerations(db)).every;
    const [{ id: tagId }] = await db('tags').insert({ version_id: versionId, name: 'renamed 0' }).returning('id');
    for (let i = 1; i < 300; i++) await db('tags').where({ id: tagId }).update({ name: `renamed ${i}` });
    // Many statements in one transaction count once; a snapshot transaction writes and commits as any other.
    await db.transaction(async (trx) => {
      for (let i = 0; i < 3; i++) await trx('tags').where({ id: tagId }).update({ name: `again ${i}` });
    }, { isolationLevel: 'repeatable read' });
    expect((await exploreGenerations(db)).every - before).toBe(301n);
    const { n } = (await db('explore_changes').count({ n: '*' }).first())!;
    expect(Number(n)).toBeLessThan(200);
    await db('tags').where({ id: tagId }).delete();
  });

  /** How much each generation grew while `write` ran. */
  async function growth(write: () => Promise<unknown>) {
    const before = await exploreGenerations(api.deps.db);
    await write();
    const after = await exploreGenerations(api.deps.db);
    return { every: Number(after.every - before.every), clustered: Number(after.clustered - before.clustered) };
  }

  it('counts writes that touch only media not clustered yet apart from those that touch clustered media', async () => {
    const { db } = api.deps;
    const added = randomUUID();
    const row = { version_id: versionId, kind: 'IMAGE', batch_id: randomUUID(), file_name: 'new.jpg', blob_sha256: 'b'.repeat(64), embedded: false };
    // What an add_media batch writes before it places its media: rows, their issues, their marks; objects and anchors.
    expect(await growth(() => db('media').insert({ ...row, id: added }))).toEqual({ every: 1, clustered: 0 });
    expect(await growth(() => db('media_issues').insert({ version_id: versionId, media_id: added, issue_type: 'dark', confidence: 0.9 }))).toEqual({ every: 1, clustered: 0 });
    expect(await growth(() => db('media_labels').insert({ version_id: versionId, media_id: added, label: 'bird', source: 'folder', confidence: 1 }))).toEqual({ every: 1, clustered: 0 });
    expect(await growth(() => db('media').where({ version_id: versionId, id: added }).update({ embedded: true, caption: 'a bird' }))).toEqual({ every: 1, clustered: 0 });
    // One transaction writing both kinds counts once in each.
    expect(
      await growth(() =>
        db.transaction(async (trx) => {
          await trx('media').where({ version_id: versionId, id: added }).update({ caption: 'a small bird' });
          await trx('media').where({ version_id: versionId, id: media[0] }).update({ caption: 'caption 0' });
          await trx('media_labels').where({ version_id: versionId, media_id: media[1] }).delete();
        }),
      ),
    ).toEqual({ every: 1, clustered: 1 });
    // Writes to clustered media, their issues and labels, and the placement of a new item count for both.
    expect(await growth(() => db('media').where({ version_id: versionId, id: media[0] }).update({ caption: 'caption 0' }))).toEqual({ every: 1, clustered: 1 });
    expect(await growth(() => db('media_issues').insert({ version_id: versionId, media_id: media[5], issue_type: 'dark', confidence: 0.9 }))).toEqual({ every: 1, clustered: 1 });
    expect(await growth(() => db('media_issues').where({ version_id: versionId, media_id: media[5] }).delete())).toEqual({ every: 1, clustered: 1 });
    expect(await growth(() => db('media').where({ version_id: versionId, id: added }).update({ cluster_ids: [clusters[1], null, null, null, null] }))).toEqual({ every: 1, clustered: 1 });
    expect(await growth(() => db('media').where({ version_id: versionId, id: added }).update({ cluster_ids: null }))).toEqual({ every: 1, clustered: 1 });
    // Removing the rows of media never clustered (the media row's delete cascades to tables that always count).
    expect(
      await growth(async () => {
        await db('media_labels').where({ version_id: versionId, media_id: added }).delete();
        await db('media_issues').where({ version_id: versionId, media_id: added }).delete();
      }),
    ).toEqual({ every: 2, clustered: 0 });
    await db('media').where({ version_id: versionId, id: added }).delete();
  });

  it('keeps image pages while media not clustered yet are added, and answers ranked and object pages anew', async () => {
    const { db } = api.deps;
    const labelled = vql([{ labels: { op: 'one_of', value: ['cat'] } }]);
    const plain = await answer();
    const cats = await answer(labelled);
    await answer({ entity_type: 'OBJECTS' });
    const added = randomUUID();
    await db('media').insert({ version_id: versionId, id: added, kind: 'IMAGE', batch_id: randomUUID(), file_name: 'cat.jpg', blob_sha256: 'c'.repeat(64), embedded: true });
    await db('media_labels').insert({ version_id: versionId, media_id: added, label: 'cat', source: 'folder', confidence: 1 });
    for (const [query, before] of [[{}, plain], [labelled, cats]] as const) {
      const now = await explore(query).expect(200);
      expect(now.headers['x-explore-answer']).toBe('hit');
      expect(now.text).toBe(before.text);
    }
    expect((await explore({ entity_type: 'OBJECTS' }).expect(200)).headers['x-explore-answer']).toBe('miss');
    // Placed: the labelled page shows it at once.
    await db.transaction(async (trx) => {
      await trx('cluster_members').insert({ clustering_id: clusteringId, threshold: 0, media_id: added, cluster_id: clusters[1] });
      await trx('media').where({ version_id: versionId, id: added }).update({ cluster_ids: [clusters[1], null, null, null, null] });
    });
    const placed = (await answer(labelled)).body.clusters;
    expect(placed.flatMap((cluster: { previews: Array<{ media_id: string }> }) => cluster.previews.map((preview) => preview.media_id))).toContain(added);
    await db.transaction(async (trx) => {
      await trx('cluster_members').where({ clustering_id: clusteringId, media_id: added }).delete();
      await trx('media_labels').where({ version_id: versionId, media_id: added }).delete();
      await trx('media').where({ version_id: versionId, id: added }).delete();
    });
  });

  it('makes a placement wait for a writer of rows of the same media item not clustered yet', async () => {
    const { db } = api.deps;
    const added = randomUUID();
    await db('media').insert({ version_id: versionId, id: added, kind: 'IMAGE', batch_id: randomUUID(), file_name: 'late.jpg', blob_sha256: 'd'.repeat(64), embedded: true });
    const writer = await db.transaction();
    try {
      await writer('media_labels').insert({ version_id: versionId, media_id: added, label: 'late', source: 'folder', confidence: 1 });
      // The writer saw the item unclustered (counted for `every` only); placing it must not commit before the writer does.
      await expect(
        db.transaction(async (trx) => {
          await trx.raw(`SET LOCAL lock_timeout = '200ms'`);
          await trx('media').where({ version_id: versionId, id: added }).update({ cluster_ids: [clusters[1], null, null, null, null] });
        }),
      ).rejects.toThrow(/lock timeout/);
    } finally {
      await writer.rollback();
    }
    await db('media').where({ version_id: versionId, id: added }).delete();
  });

  it('reads the generations once for requests called together, and anew for a request called after a write', async () => {
    const { db } = api.deps;
    const answers = createExploreAnswers(db, 1024 * 1024);
    let readings = 0;
    const counted = (query: { sql: string }) => {
      if (query.sql.includes('explore_changes')) readings++;
    };
    db.on('query', counted);
    try {
      const keys = ['a', 'b', 'c', 'd'];
      const seen: number[] = [];
      const first = await Promise.all(keys.map((key) => answers.answer(key, 'every', false, async () => {
        seen.push(readings);
        return `"${key} 1"`;
      })));
      // Four different requests, one reading before any of them was computed.
      expect(seen).toEqual([1, 1, 1, 1]);
      expect(first.map((answer) => answer.source)).toEqual(['miss', 'miss', 'miss', 'miss']);
      const again = await Promise.all(keys.map((key) => answers.answer(key, 'every', false, async () => `"${key} 2"`)));
      expect(again.map((answer) => [answer.source, answer.body.toString()])).toEqual(keys.map((key) => ['hit', `"${key} 1"`]));
      // A write committed before the call: the reading it waits for sees it.
      await db('tags').insert({ version_id: versionId, name: 'counted' });
      const after = await answers.answer('a', 'every', false, async () => '"a 3"');
      expect([after.source, after.body.toString()]).toEqual(['miss', '"a 3"']);
    } finally {
      db.off('query', counted);
      await db('tags').where({ version_id: versionId, name: 'counted' }).delete();
    }
  });

  it('computes equal requests under way once', async () => {
    await api.deps.db('media').where({ version_id: versionId, id: media[1] }).update({ caption: 'under way' });
    const answers = await Promise.all(Array.from({ length: 4 }, () => explore().expect(200)));
    const sources = answers.map((response) => response.headers['x-explore-answer']).sort();
    expect(sources.filter((source) => source === 'miss')).toHaveLength(1);
    expect(new Set(answers.map((response) => response.text)).size).toBe(1);
  });

  it('sends answers gzip-compressed to a client that accepts gzip, and plain to one that does not', async () => {
    const query = vql([{ uniqueness: { op: 'uniqueness', value: 0.1 } }]);
    const plain = await explore(query).set('Accept-Encoding', 'identity').expect(200);
    expect([plain.headers['x-explore-answer'], plain.headers['content-encoding']]).toEqual(['miss', undefined]);
    expect(plain.body.clusters.length).toBeGreaterThan(0);
    const compressed = await explore(query).set('Accept-Encoding', 'gzip, deflate').expect(200);
    expect([compressed.headers['x-explore-answer'], compressed.headers['content-encoding']]).toEqual(['hit', 'gzip']);
    expect(compressed.headers.vary).toMatch(/Accept-Encoding/i);
    expect(compressed.text).toBe(plain.text);
    expect(Number(compressed.headers['content-length'])).toBeLessThan(Buffer.byteLength(plain.text));
    const again = await explore(query).set('Accept-Encoding', 'identity').expect(200);
    expect([again.headers['x-explore-answer'], again.headers['content-encoding'], again.text]).toEqual(['hit', undefined, plain.text]);
    const computed = await explore({ ...query, page_number: 1 }).set('Accept-Encoding', 'gzip').expect(200);
    expect([computed.headers['x-explore-answer'], computed.headers['content-encoding']]).toEqual(['miss', 'gzip']);
  });
});
