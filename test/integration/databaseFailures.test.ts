import { ApplicationFailure } from '@temporalio/activity';
import { databaseErrorsWithoutSql } from '../../workers/dataFailures';
import { startTestApi, type TestApi } from '../support/testStack';

/** Real Postgres errors as an activity throws them: no SQL in what a task records, and data refusals are final. */
describe('database errors leaving an activity', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api?.close());

  const refusal = async (statement: string): Promise<unknown> => {
    try {
      await api.deps.db.transaction(async (trx) => {
        await trx.raw('CREATE TEMP TABLE probe (name varchar(8) UNIQUE) ON COMMIT DROP');
        await trx.raw(`INSERT INTO probe VALUES ('secret-a')`);
        await trx.raw(statement);
      });
    } catch (error) {
      return error;
    }
    throw new Error('the statement was accepted');
  };

  it('fails at once on data Postgres refuses (a value too long, a check), and retries what a race can cause (a duplicate key), named without the statement', async () => {
    const refusals: Array<[string, string, boolean]> = [
      [`INSERT INTO probe VALUES ('a value far too long for it')`, 'value too long for type character varying(8)', true],
      [`INSERT INTO probe VALUES (NULL), ('ab'), ('abc') RETURNING 1/0`, 'division by zero', true],
      [`INSERT INTO probe VALUES ('secret-a')`, 'duplicate key value violates unique constraint "probe_name_key"', false],
    ];
    for (const [statement, reason, final] of refusals) {
      const error = await refusal(statement);
      expect((error as Error).message).toContain('INSERT INTO probe');
      const failure = databaseErrorsWithoutSql(error) as ApplicationFailure;
      expect(failure).toBeInstanceOf(ApplicationFailure);
      expect([failure.type, failure.nonRetryable, failure.message]).toEqual([final ? 'DataRefused' : 'DatabaseError', final, `The database refused the data: ${reason}`]);
    }
  });

  it('keeps other database errors retryable, still without their statement', async () => {
    const error = await refusal('SELECT * FROM no_such_table_here');
    const failure = databaseErrorsWithoutSql(error) as ApplicationFailure;
    expect([failure.type, failure.nonRetryable, failure.message]).toEqual(['DatabaseError', false, 'The database refused the data: relation "no_such_table_here" does not exist']);
  });

  it('leaves errors that are not the database’s as they are', () => {
    const error = new Error('a file went missing');
    expect(databaseErrorsWithoutSql(error)).toBe(error);
  });
});
