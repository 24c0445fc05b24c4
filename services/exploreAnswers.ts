import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Db } from '../db/connection';
import { exploreGenerations, type ExploreScope } from '../db/repositories/exploreChanges';

/** Where an answer came from: remembered, computed for this request, or computed for an equal request under way. */
export type AnswerSource = 'hit' | 'miss' | 'shared';

/** An answer's JSON (UTF-8), and the same gzip-compressed, which is what is remembered. */
interface Encoded {
  plain: Buffer;
  gzipped: Buffer;
}

const gzipped = promisify(gzip);
const gunzipped = promisify(gunzip);
/**
 * zlib's fastest level: on Explore pages of 90 and 535 KiB it compresses 4.6 and 4.3 times in a fifth of level 6's
 * time (which compresses 4.8 and 4.6 times); brotli's quality 1 compresses alike at four times level 1's cost.
 */
export const GZIP_LEVEL = 1;

/**
 * Explore's answers (response bodies) remembered by what was asked, while nothing Explore reads changes. Each answer
 * belongs to a scope (db/repositories/exploreChanges.ts): every reading of a scope's generation that differs from the
 * last forgets that scope's answers. An answer is kept only when its scope's generation read before and after
 * computing it is the same, so no write of its scope committed while it was computed. Equal requests arriving while
 * one is computed wait for it.
 *
 * Answers are remembered gzip-compressed (compressed once, in libuv's thread pool, before the first is sent), at most
 * `maxBytes` of them, the least recently used dropped first: a page is 20-550 KiB of JSON and over 4 times smaller
 * compressed, so the memory holds that many times more answers, and a client that accepts gzip (a browser, the web
 * app, the Python client) gets the compressed bytes, which cost the API and the client less to send and read. Other
 * clients get it decompressed.
 */
export function createExploreAnswers(db: Db, maxBytes: number) {
  const generations: Record<ExploreScope, bigint> = { every: -1n, clustered: -1n };
  // A Map iterates in insertion order: the first key is the least recently used.
  const answers = new Map<string, { gzipped: Buffer; scope: ExploreScope }>();
  let bytes = 0;
  const underWay = new Map<string, Promise<Encoded>>();
  const counts = { hit: 0, miss: 0, shared: 0 };

  const forget = (key: string) => {
    bytes -= answers.get(key)!.gzipped.length;
    answers.delete(key);
  };
  const remember = (key: string, compressed: Buffer, scope: ExploreScope) => {
    if (compressed.length > maxBytes) return;
    if (answers.has(key)) forget(key);
    answers.set(key, { gzipped: compressed, scope });
    bytes += compressed.length;
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
  const encode = async (json: string): Promise<Encoded> => {
    const plain = Buffer.from(json);
    return { plain, gzipped: await gzipped(plain, { level: GZIP_LEVEL }) };
  };
  const sent = (encoded: Encoded, acceptsGzip: boolean) => (acceptsGzip ? { body: encoded.gzipped, gzip: true } : { body: encoded.plain, gzip: false });

  return {
    /** Answers so far by source, and what is remembered now. */
    stats: () => ({ ...counts, entries: answers.size, bytes }),

    /**
     * The answer to the request `key` names (everything the answer depends on but the stored rows), which reads the
     * rows of `scope`, computed by `compute` when not remembered: gzip-compressed (`gzip`) when the client accepts it.
     */
    async answer(
      key: string,
      scope: ExploreScope,
      acceptsGzip: boolean,
      compute: () => Promise<string>,
    ): Promise<{ body: Buffer; gzip: boolean; source: AnswerSource }> {
      const before = (await read())[scope];
      const current = before === generations[scope];
      const known = current ? answers.get(key) : undefined;
      if (known !== undefined) {
        answers.delete(key);
        answers.set(key, known);
        counts.hit++;
        return acceptsGzip ? { body: known.gzipped, gzip: true, source: 'hit' } : { body: await gunzipped(known.gzipped), gzip: false, source: 'hit' };
      }
      const flight = `${scope}\n${before}\n${key}`;
      const pending = underWay.get(flight);
      if (pending) {
        counts.shared++;
        return { ...sent(await pending, acceptsGzip), source: 'shared' };
      }
      const computing = compute().then(encode);
      underWay.set(flight, computing);
      try {
        const encoded = await computing;
        counts.miss++;
        if (current && (await read())[scope] === before && generations[scope] === before) remember(key, encoded.gzipped, scope);
        return { ...sent(encoded, acceptsGzip), source: 'miss' };
      } finally {
        underWay.delete(flight);
      }
    },
  };
}

export type ExploreAnswers = ReturnType<typeof createExploreAnswers>;
