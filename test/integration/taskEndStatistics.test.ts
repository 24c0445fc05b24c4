import { commitTaskEnd, FRESH_STATISTICS_SHARE } from '../../services/taskTypes';
import { startTestApi, type TestApi } from '../support/testStack';
import { emptyReadyVersion } from '../support/versions';

/**
 * A task's end refreshes the planner's statistics of the tables Explore reads, unless its commit says it added only a
 * small share of the dataset's media (an add_media batch into a large dataset), which autovacuum covers in time.
 * Told by `map_points`' count of ANALYZE runs on this file's own database: nothing here changes its rows, so
 * autovacuum never analyzes it, and only the task end's ANALYZE counts.
 */
describe('statistics at a task end (real Postgres)', () => {
  let api: TestApi;
  let datasetId: string;

  beforeAll(async () => {
    api = await startTestApi();
    const { versionId } = await emptyReadyVersion(api.deps.db, 'statistics');
    datasetId = (await api.deps.db('dataset_versions').where({ id: versionId }).first('dataset_id')).dataset_id;
  });
  afterAll(() => api.close());

  const analyses = async () => {
    const { rows } = await api.deps.db.raw(`SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'map_points'`);
    return Number(rows[0].analyze_count);
  };

  it.each([
    ['a commit that says nothing (every other task)', 1, undefined],
    ['a batch of a large share of the dataset', 1, 0.5],
    ['a batch of exactly the share that counts', 1, FRESH_STATISTICS_SHARE],
    ['a batch of a small share', 0, FRESH_STATISTICS_SHARE / 2],
  ] as const)('%s: ANALYZE runs %i time(s)', async (_name, runs, addedShare) => {
    const before = await analyses();
    let committed = false;
    await commitTaskEnd(api.deps.db, datasetId, async () => {
      committed = true;
      return addedShare === undefined ? undefined : { addedShare };
    });
    expect(committed).toBe(true);
    expect((await analyses()) - before).toBe(runs);
  });
});
