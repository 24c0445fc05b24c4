import { ApplicationFailure } from '@temporalio/activity';
import { knownError } from '../../api/errors';
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

  it('answers a deadlock with 503 and Retry-After: the database rolled the request back, and it may succeed now', async () => {
    const { db } = api.deps;
    await db.raw('CREATE TABLE deadlock_probe (id int PRIMARY KEY)');
    await db.raw('INSERT INTO deadlock_probe VALUES (1), (2)');
    // Two transactions each hold one row and then ask for the other's: Postgres ends one of them.
    const holdBoth = (first: number, second: number, bothHeld: Promise<unknown>, held: () => void) =>
      db.transaction(async (trx) => {
        await trx.raw('SELECT id FROM deadlock_probe WHERE id = ? FOR UPDATE', [first]);
        held();
        await bothHeld;
        await trx.raw('SELECT id FROM deadlock_probe WHERE id = ? FOR UPDATE', [second]);
      });
    let heldOne!: () => void, heldTwo!: () => void;
    const oneHeld = new Promise<void>((resolve) => (heldOne = resolve));
    const twoHeld = new Promise<void>((resolve) => (heldTwo = resolve));
    const bothHeld = Promise.all([oneHeld, twoHeld]);
    const outcomes = await Promise.allSettled([holdBoth(1, 2, bothHeld, heldOne), holdBoth(2, 1, bothHeld, heldTwo)]);
    const failed = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(failed).toHaveLength(1);
    expect((failed[0].reason as { code?: string }).code).toBe('40P01');
    expect(knownError(failed[0].reason)).toEqual({ status: 503, detail: expect.stringContaining('try again'), retryAfterSeconds: 5 });
  });
});
