import type { Db } from '../db/connection';
import { exploreGeneration } from '../db/repositories/exploreChanges';

/** Where an answer came from: remembered, computed for this request, or computed for an equal request under way. */
export type AnswerSource = 'hit' | 'miss' | 'shared';

/**
 * Explore's answers (response bodies, UTF-8, encoded once) remembered by what was asked, while nothing Explore reads changes: every
 * reading of the generation (db/repositories/exploreChanges.ts) that differs from the last forgets them all. An answer
 * is kept only when the generation read before and after computing it is the same, so no write committed while it was
 * computed. Equal requests arriving while one is computed wait for it. At most `maxBytes` of answers, the least
 * recently used dropped first.
 */
export function createExploreAnswers(db: Db, maxBytes: number) {
  let generation = -1n;
  let answers = new Map<string, Buffer>();
  let bytes = 0;
  const underWay = new Map<string, Promise<Buffer>>();
  const counts = { hit: 0, miss: 0, shared: 0 };

  const remember = (key: string, body: Buffer) => {
    if (body.length > maxBytes) return;
    answers.set(key, body);
    bytes += body.length;
    // A Map iterates in insertion order: the first key is the least recently used.
    for (const [oldest, old] of answers) {
      if (bytes <= maxBytes) break;
      answers.delete(oldest);
      bytes -= old.length;
    }
  };

  return {
    /** Answers so far by source, and what is remembered now. */
    stats: () => ({ ...counts, entries: answers.size, bytes }),

    /** The answer to the request `key` names (everything the answer depends on but the stored rows), computed by `compute` when not remembered. */
    async answer(key: string, compute: () => Promise<string>): Promise<{ body: Buffer; source: AnswerSource }> {
      const before = BigInt(await exploreGeneration(db));
      if (before > generation) {
        generation = before;
        answers = new Map();
        bytes = 0;
      }
      const current = before === generation;
      const known = current ? answers.get(key) : undefined;
      if (known !== undefined) {
        answers.delete(key);
        answers.set(key, known);
        counts.hit++;
        return { body: known, source: 'hit' };
      }
      const flight = `${before}\n${key}`;
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
        if (current && BigInt(await exploreGeneration(db)) === before && generation === before) remember(key, body);
        return { body, source: 'miss' };
      } finally {
        underWay.delete(flight);
      }
    },
  };
}

export type ExploreAnswers = ReturnType<typeof createExploreAnswers>;
