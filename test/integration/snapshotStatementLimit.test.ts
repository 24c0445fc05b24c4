import { seedSyntheticDataset } from '../../scripts/bench/syntheticDataset';
import { startTestApi, type TestApi } from '../support/testStack';

/**
 * A snapshot is copied inside its POST, by the API, whose statements are otherwise limited to
 * DATABASE_QUERY_TIMEOUT_SECONDS: a copy statement slower than that (a big dataset, a busy disk)
 * must still finish, while every other statement keeps the limit.
 */
describe('POST snapshot under the API statement time limit', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({ DATABASE_QUERY_TIMEOUT_SECONDS: '1' });
  }, 60_000);
  afterAll(() => api?.close());

  it('copies a version whose copy statements outlast the API limit, while a tag write that slow still answers 503', async () => {
    const { db } = api.deps;
    const { datasetId, tagId } = await seedSyntheticDataset(db, 300, 4);
    const someMedia = await db('media').where({ version_id: db('datasets').where({ id: datasetId }).select('head_version_id') }).limit(3).pluck('id');
    // Every statement writing media_tags takes 2 s: twice the API's limit.
    await db.raw(`CREATE FUNCTION slow_statement() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(2); RETURN NULL; END $$`);
    await db.raw('CREATE TRIGGER slow_media_tags AFTER INSERT ON media_tags FOR EACH STATEMENT EXECUTE FUNCTION slow_statement()');

    const tagging = await api.request.post(`/api/v1/dataset/${datasetId}/tags/${tagId}/media`).send({ media_ids: someMedia });
    expect({ status: tagging.status, body: tagging.body }).toEqual({ status: 503, body: { detail: expect.any(String) } });

    const taken = await api.request.post(`/api/v1/dataset/${datasetId}/snapshot`).send({ name: 'slow disk' });
    expect({ status: taken.status, name: taken.body.snapshot_name, images: taken.body.n_images }).toEqual({ status: 200, name: 'slow disk', images: 300 });
    const copied = await db('media_tags').where({ version_id: db('snapshots').where({ id: taken.body.snapshot_id }).select('version_id') }).count({ n: '*' }).first();
    expect(Number(copied!.n)).toBe(30);
  }, 60_000);
});
