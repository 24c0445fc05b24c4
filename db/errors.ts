import { knex } from 'knex';

// Errors the data layer lets through to the edge: a missing row and a unique-key clash.
export { NotFoundError, UniqueViolationError } from 'objection';

/** No pooled connection within the acquire timeout: the database is down, unreachable or saturated. */
export const KnexTimeoutError = knex.KnexTimeoutError;
