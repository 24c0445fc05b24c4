import { seedSyntheticDataset } from '../../scripts/bench/syntheticDataset';
import { eventually } from '../support/media';
import { startTestApi, type TestApi } from '../support/testStack';

/**
 * A snapshot is copied in one repeatable-read transaction that ends by making the snapshot the dataset's current one:
 * a write to the datasets row committed meanwhile (a background task's) fails that update with a serialization
 * failure. The transaction is run again, and the POST answers 200, not 503.
 */
describe('POST snapshot while the datasets row is written', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  }, 60_000);
  afterAll(() => api?.close());

  it('runs the copy again after a serialization failure: one snapshot, current, with every row', async () => {
    const { db } = api.deps;
    const { datasetId } = await seedSyntheticDataset(db, 50, 4);
    // Copying media_tags takes a second, in the snapshot's transaction: the write below lands inside it.
    await db.raw(`CREATE FUNCTION slow_copy() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$`);
    await db.raw('CREATE TRIGGER slow_media_tags AFTER INSERT ON media_tags FOR EACH STATEMENT EXECUTE FUNCTION slow_copy()');
    try {
      const taking = api.request.post(`/api/v1/dataset/${datasetId}/snapshot`).send({ name: 'while written' }).then((response) => response);
      await eventually(
        async () => (await db('pg_stat_activity').where({ wait_event: 'PgSleep' }).count({ n: '*' }).first())!.n,
        (n) => Number(n) > 0,
        30_000,
        'the snapshot copying media_tags',
        20,
      );
      await db('datasets').where({ id: datasetId }).update({ updated_at: db.fn.now() });
      const taken = await taking;
      expect({ status: taken.status, name: taken.body.snapshot_name, images: taken.body.n_images }).toEqual({ status: 200, name: 'while written', images: 50 });
      expect(await db('snapshots').where({ dataset_id: datasetId, name: 'while written' }).pluck('id')).toEqual([taken.body.snapshot_id]);
      expect((await db('datasets').where({ id: datasetId }).first('current_snapshot_id')).current_snapshot_id).toBe(taken.body.snapshot_id);
    } finally {
      await db.raw('DROP TRIGGER slow_media_tags ON media_tags');
      await db.raw('DROP FUNCTION slow_copy()');
    }
  }, 60_000);
});
