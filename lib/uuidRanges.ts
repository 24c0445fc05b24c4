/** Ids from `from` (included) to `to` (excluded; null: to the end). */
export interface UuidRange {
  from: string;
  to: string | null;
}

/**
 * `count` ranges of uuids that split the id space evenly and cover all of it: random (v4) ids fall
 * into them alike, so each range holds about 1/count of a version's media.
 */
export function uuidRanges(count: number): UuidRange[] {
  const boundary = (i: number) => `${Math.floor((i * 2 ** 32) / count).toString(16).padStart(8, '0')}-0000-0000-0000-000000000000`;
  return Array.from({ length: count }, (_, i) => ({ from: boundary(i), to: i === count - 1 ? null : boundary(i + 1) }));
}
