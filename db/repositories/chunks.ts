import type { Knex } from 'knex';
import type { Db } from '../connection';

/** Rows with ids in (after, last]: one chunk of a run (uploaded files' ids, or media ids). */
export interface IdRange {
  after: string | null;
  last: string;
}

/** Restricts `query` to the rows whose `column` falls in `range`. */
export function inRange(query: Knex.QueryBuilder, column: string, range: IdRange): Knex.QueryBuilder {
  if (range.after) query.where(column, '>', range.after);
  return query.where(column, '<=', range.last);
}

/**
 * Up to `count` chunks of `size` rows of `rows` after id `after`, in id order (each ends at its last row's id), and how
 * many chunks all the rows after `after` make: one query numbering the rows by `idColumn`.
 */
export async function planIdChunks(
  db: Db,
  rows: Knex.QueryBuilder,
  idColumn: string,
  after: string | null,
  size: number,
  count: number,
): Promise<{ ends: string[]; remaining: number }> {
  const numbered = rows
    .modify((query) => (after ? query.where(idColumn, '>', after) : query))
    .select({ id: idColumn }, db.raw(`row_number() over (order by ${idColumn}) as n`), db.raw('count(*) over () as total'));
  const ends: Array<{ id: string; total: string }> = await db
    .from(numbered.as('s'))
    .whereRaw('n % ? = 0 or n = total', [size])
    .orderBy('id')
    .limit(count)
    .select('id', 'total');
  return { ends: ends.map((row) => row.id), remaining: ends.length === 0 ? 0 : Math.ceil(Number(ends[0].total) / size) };
}
