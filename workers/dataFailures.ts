import { ApplicationFailure } from '@temporalio/activity';
import type { ActivityInboundCallsInterceptor, ActivityInterceptorsFactory } from '@temporalio/worker';

/**
 * SQLSTATE classes of errors the same data meets again on every attempt: data exceptions (22: a value too long, bad
 * text), integrity violations (23) and program limits (54: an index row too large). Retrying them held a dataset
 * READ ONLY for half an hour (60 attempts) before the task failed. A unique or foreign-key violation can also come of a
 * race with another attempt (an aborted one still writing, a row deleted meanwhile), so those two are retried.
 */
const FINAL_CLASSES = new Set(['22', '23', '54']);
const RACES = new Set(['23505', '23503']);

interface DatabaseErrorLike extends Error {
  code: string;
  severity?: string;
}

const isDatabaseError = (error: unknown): error is DatabaseErrorLike =>
  error instanceof Error && typeof (error as Partial<DatabaseErrorLike>).code === 'string' && /^[0-9A-Z]{5}$/.test((error as DatabaseErrorLike).code);

/** Postgres's own words: knex puts the whole statement before them (`<sql> - <message>`), which no user should see. */
export function withoutStatement(message: string): string {
  const at = message.lastIndexOf(' - ');
  return at === -1 ? message : message.slice(at + 3);
}

/**
 * Errors from Postgres leave an activity without the statement in their message (a task's error_message is shown to
 * users), and those of data that cannot be stored fail the activity at once instead of being retried.
 */
export function databaseErrorsWithoutSql(error: unknown): unknown {
  if (!isDatabaseError(error)) return error;
  const message = `The database refused the data: ${withoutStatement(error.message)}`;
  if (FINAL_CLASSES.has(error.code.slice(0, 2)) && !RACES.has(error.code)) return ApplicationFailure.create({ type: 'DataRefused', message, nonRetryable: true });
  return ApplicationFailure.create({ type: 'DatabaseError', message, nonRetryable: false });
}

class DatabaseFailures implements ActivityInboundCallsInterceptor {
  async execute(...[input, next]: Parameters<NonNullable<ActivityInboundCallsInterceptor['execute']>>): Promise<unknown> {
    try {
      return await next(input);
    } catch (error) {
      throw databaseErrorsWithoutSql(error);
    }
  }
}

export const databaseFailureInterceptors: ActivityInterceptorsFactory = () => ({ inbound: new DatabaseFailures() });
