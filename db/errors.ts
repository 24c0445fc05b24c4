// Errors the data layer lets through to the edge: a missing row and a unique-key clash.
export { NotFoundError, UniqueViolationError } from 'objection';
