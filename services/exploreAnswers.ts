import type { Db } from '../db/connection';
import { exploreGenerations, type ExploreScope } from '../db/repositories/exploreChanges';

/** Where an answer came from: remembered, computed for this request, or computed for an equal request under way. */
export type AnswerSource = 'hit' | 'miss' | 'shared';

/**
 * Explore's answers (response bodies, UTF-8, encoded once) remembered by what was asked, while nothing Explore reads changes.
 * Each answer belongs to a scope (db/repositories/exploreChanges.ts): every reading of a scope's generation that differs
 * from the last forgets that scope's answers. An answer is kept only when its scope's generation read before and after
 * computing it is the same, so no write of its scope committed while it was computed. Equal requests arriving while
 * one is computed wait for it. At most `maxBytes` of answers, the least recently used dropped first.
 */
export function createExploreAnswers(db: Db, maxBytes: number) {
  const generations: Record<ExploreScope, bigint> = { every: -1n, clustered: -1n };
  // A Map iterates in insertion order: the first key is the least recently used.
  const answers = new Map<string, { body: Buffer; scope: ExploreScope }>();
  let bytes = 0;
  const underWay = new Map<string, Promise<Buffer>>();
  const counts = { hit: 0, miss: 0, shared: 0 };

  const forget = (key: string) => {
    bytes -= answers.get(key)!.body.length;
    answers.delete(key);
  };
  const remember = (key: string, body: Buffer, scope: ExploreScope) => {
    if (body.length > maxBytes) return;
    if (answers.has(key)) forget(key);
    answers.set(key, { body, scope });
    bytes += body.length;
    for (const oldest of answers.keys()) {
      if (bytes <= maxBytes) break;
      forget(oldest);
    }
  };
  // The reading requests wait for: it starts after each of them was called, after the one under way (if any) ends.
  let underWayReading: Promise<unknown> = Promise.resolve();
  let nextReading: Promise<Record<ExploreScope, bigint>> | undefined;
  /**
   * The generations as of a moment after the call. Requests arriving together share one reading (under load each
   * request read them on its own: a query per request and one more per answer computed).
   */
  const generationsNow = () => {
    nextReading ??= underWayReading.then(() => {
      nextReading = undefined;
      const reading = exploreGenerations(db);
      underWayReading = reading.catch(() => undefined);
      return reading;
    });
    return nextReading;
  };
  /** The generations now; a scope's that grew forgets its answers. */
  const read = async () => {
    const now = await generationsNow();
    for (const scope of ['every', 'clustered'] as const) {
      if (now[scope] <= generations[scope]) continue;
      generations[scope] = now[scope];
      for (const [key, known] of answers) if (known.scope === scope) forget(key);
    }
    return now;
  };

  return {
    /** Answers so far by source, and what is remembered now. */
    stats: () => ({ ...counts, entries: answers.size, bytes }),

    /**
     * The answer to the request `key` names (everything the answer depends on but the stored rows), which reads the
     * rows of `scope`, computed by `compute` when not remembered.
     */
    async answer(key: string, scope: ExploreScope, compute: () => Promise<string>): Promise<{ body: Buffer; source: AnswerSource }> {
      const before = (await read())[scope];
      const current = before === generations[scope];
      const known = current ? answers.get(key) : undefined;
      if (known !== undefined) {
        answers.delete(key);
        answers.set(key, known);
        counts.hit++;
        return { body: known.body, source: 'hit' };
      }
      const flight = `${scope}\n${before}\n${key}`;
      const pending = underWay.get(flight);
      if (pending) {
        counts.shared++;
        return { body: await pending, source: 'shared' };
      }
      const computing = compute().then((json) => Buffer.from(json));
      underWay.set(flight, computing);
      try {
        const body = await computing;
        counts.miss++;
        if (current && (await read())[scope] === before && generations[scope] === before) remember(key, body, scope);
        return { body, source: 'miss' };
      } finally {
        underWay.delete(flight);
      }
    },
  };
}

export type ExploreAnswers = ReturnType<typeof createExploreAnswers>;
