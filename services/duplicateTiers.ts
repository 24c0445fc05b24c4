import os from 'node:os';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import pLimit from 'p-limit';
import { countFacets } from '../db/repositories/clusterFacets';
import type { Db } from '../db/connection';
import { savePixelPrints, tierFactsOf, untieredPairs, writePairTiers, type TieredPairs, type TierFactsRow, type UntieredPairs } from '../db/repositories/duplicates';
import { decodePrint, encodePrint, pixelPrintOf } from '../lib/media/pixelPrint';
import { betterPairFirst, matchPrints, reversedMatch, tierOfPair, type PixelPrint, type PrintMatch, type TierFacts } from '../lib/quality/pixelMatch';
import { startPrintMatchThread, type PrintMatchThread } from '../lib/quality/printMatchThread';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';

/** Media items whose pairs (up to NEIGHBOUR_SCORING.duplicatePairs each) are decided per round: their copies' prints are held at once. */
const ITEMS_PER_ROUND = 200;
/**
 * Rounds that keep the version's issue counts as they write, counting their items' clusters again (an added batch's
 * first 1,000 items with pairs: a cluster recount costs about a tenth of a whole count at 100,000 media); later rounds
 * forget the counts, and the whole version is counted once at the end.
 */
const ROUNDS_RECOUNTED = 5;
/** Thumbnails read and printed at once. */
const PRINT_CONCURRENCY = 8;

/** The print of each row, made from its thumbnail (and kept) when it has none yet; null without a readable thumbnail. */
async function printsOf(db: Db, store: ObjectStore, versionId: string, rows: TierFactsRow[]): Promise<Map<string, PixelPrint | null>> {
  const prints = new Map<string, PixelPrint | null>();
  const made: Array<{ mediaId: string; print: Buffer }> = [];
  const missing = rows.filter((row) => {
    if (row.pixelPrint) prints.set(row.id, decodePrint(row.pixelPrint));
    else if (!row.thumbSha256) prints.set(row.id, null);
    return !row.pixelPrint && row.thumbSha256;
  });
  const limit = pLimit(PRINT_CONCURRENCY);
  await Promise.all(
    missing.map((row) =>
      limit(async () => {
        // A thumbnail that cannot be read or decoded leaves the pair to the embedding (similar), as for a media item without one.
        const print = await store
          .get(blobKey(row.thumbSha256!))
          .then(pixelPrintOf)
          .catch(() => null);
        prints.set(row.id, print);
        if (print) made.push({ mediaId: row.id, print: encodePrint(print) });
      }),
    ),
  );
  await savePixelPrints(db, versionId, made);
  return prints;
}

/** Matches kept for the other side of their pair; past this many the oldest are let go (matched again if asked for). */
const MATCHES_KEPT = 100_000;
/** A round with fewer pairs to match than this matches them on this thread alone (a thread's start would cost more). */
const PAIRS_FOR_A_THREAD = 100;

/**
 * The matches of media items' prints, each pair matched once for both sides (an item and its copy often name each
 * other) across rounds: a side's match is kept until it is taken.
 */
function knownMatches() {
  const known = new Map<string, PrintMatch>();
  const keyOf = (itemId: string, otherId: string) => `${itemId}:${otherId}`;
  const keep = (key: string, match: PrintMatch) => {
    if (known.size >= MATCHES_KEPT) known.delete(known.keys().next().value!);
    known.set(key, match);
  };
  return {
    has: (itemId: string, otherId: string) => known.has(keyOf(itemId, otherId)),
    put(itemId: string, otherId: string, match: PrintMatch) {
      keep(keyOf(itemId, otherId), match);
      keep(keyOf(otherId, itemId), reversedMatch(match));
    },
    take(itemId: string, otherId: string): PrintMatch | undefined {
      const match = known.get(keyOf(itemId, otherId));
      known.delete(keyOf(itemId, otherId));
      return match;
    },
  };
}
type KnownMatches = ReturnType<typeof knownMatches>;

/** One round's media items with their untiered pairs, and the facts of every media item they name (prints made). */
interface Round {
  items: UntieredPairs[];
  facts: Map<string, TierFacts>;
}

async function roundAfter(deps: { db: Db; store: ObjectStore }, versionId: string, after: string | null): Promise<Round | null> {
  const { db, store } = deps;
  const items = await untieredPairs(db, versionId, after, ITEMS_PER_ROUND);
  if (items.length === 0) return null;
  const rows = await tierFactsOf(db, versionId, [...new Set(items.flatMap((item) => [item.mediaId, ...item.pairs.map((pair) => pair.duplicateOf)]))]);
  const prints = await printsOf(db, store, versionId, rows);
  return { items, facts: new Map<string, TierFacts>(rows.map((row) => [row.id, { ...row, print: prints.get(row.id) ?? null }])) };
}

interface PairToMatch {
  itemId: string;
  otherId: string;
  prints: readonly [PixelPrint, PixelPrint];
}

/** The round's pairs whose prints tierOfPair compares (both printed, other bytes), each once, and not matched before. */
function pairsToMatch({ items, facts }: Round, known: KnownMatches): PairToMatch[] {
  const pairs: PairToMatch[] = [];
  const listed = new Set<string>();
  for (const { mediaId, pairs: itemPairs } of items) {
    const item = facts.get(mediaId);
    for (const { duplicateOf } of itemPairs) {
      const other = facts.get(duplicateOf);
      if (!item?.print || !other?.print || item.blobSha256 === other.blobSha256 || known.has(mediaId, duplicateOf)) continue;
      if (listed.has(`${duplicateOf}:${mediaId}`)) continue;
      listed.add(`${mediaId}:${duplicateOf}`);
      pairs.push({ itemId: mediaId, otherId: duplicateOf, prints: [item.print, other.print] });
    }
  }
  return pairs;
}

/**
 * Matches the pairs, half of them on `thread` when there is one, the other half here with the event loop let through
 * after each (the next round's prints are made meanwhile); a thread that fails leaves its half to this one.
 */
async function matchPairs(pairs: PairToMatch[], known: KnownMatches, thread: PrintMatchThread | undefined): Promise<void> {
  const split = thread ? Math.ceil(pairs.length / 2) : pairs.length;
  const there = thread?.matchAll(pairs.slice(split).map((pair) => pair.prints)).catch(() => undefined);
  for (const { itemId, otherId, prints } of pairs.slice(0, split)) {
    known.put(itemId, otherId, matchPrints(...prints));
    await setImmediatePromise();
  }
  const matched = await there;
  pairs.slice(split).forEach(({ itemId, otherId, prints }, i) => known.put(itemId, otherId, matched?.[i] ?? matchPrints(...prints)));
}

/** The round's pairs with their tiers, each item's best first, from the matches made for it. */
function tiersOf({ items, facts }: Round, known: KnownMatches): TieredPairs[] {
  return items.flatMap(({ mediaId, pairs }) => {
    const item = facts.get(mediaId);
    const decided = pairs.flatMap((pair) => {
      const other = facts.get(pair.duplicateOf);
      const matchOf = (a: PixelPrint, b: PixelPrint) => known.take(mediaId, pair.duplicateOf) ?? matchPrints(a, b);
      return item && other ? [{ mediaId, ...pair, ...tierOfPair(item, other, pair.similarity, matchOf) }] : [];
    });
    return decided.length > 0 ? [{ mediaId, pairs: decided.sort(betterPairFirst) }] : [];
  });
}

/**
 * Decides the tier of every pair of the version the analysis wrote without one (lib/quality/pixelMatch.ts): the same
 * bytes are exact, thumbnails whose pixels match near-identical, the rest similar. Each media item's pairs are written
 * best first, so its issue names its best pair. Safe to repeat: tiered items are skipped. Returns the pairs tiered.
 * The first ROUNDS_RECOUNTED rounds (an added batch's) keep the version's issue counts current as they are written (a
 * count of the whole version took 2-3.6 s of Postgres at 100,000 media, while Explore served); more are counted once
 * at the end.
 * A round's pairs are matched (JavaScript: on this thread and, for many pairs on a machine of several cores, on a
 * thread of its own) while the next round's thumbnails are read and printed (libvips' threads): they overlap on the cores.
 */
export async function tierDuplicatePairs(deps: { db: Db; store: ObjectStore }, versionId: string, onRound: () => void = () => {}): Promise<number> {
  const { db } = deps;
  let tiered = 0;
  const known = knownMatches();
  let thread: PrintMatchThread | undefined;
  let rounds = 0;
  let next = roundAfter(deps, versionId, null);
  try {
    for (;;) {
      const round = await next;
      if (!round) {
        // What is not counted now (a whole version's tiers forgot the issue counts; a re-clustering, every kind) is
        // counted once, here rather than at the task's end, whose count gives up after 30 s; counted kinds cost nothing.
        if (tiered > 0) await countFacets(db, versionId);
        return tiered;
      }
      const counts = ++rounds <= ROUNDS_RECOUNTED ? 'recount' : 'forget';
      // Rounds are of the media items after this one's: its tiers, written below, change none of theirs.
      next = roundAfter(deps, versionId, round.items[round.items.length - 1].mediaId);
      // A failure of this round leaves the next one unread: its own failure is not reported on its own.
      next.catch(() => {});
      const pairs = pairsToMatch(round, known);
      if (!thread && pairs.length >= PAIRS_FOR_A_THREAD && os.availableParallelism() > 1) thread = startPrintMatchThread();
      await matchPairs(pairs, known, thread);
      const tiers = tiersOf(round, known);
      await writePairTiers(db, versionId, tiers, counts);
      tiered += tiers.reduce((sum, item) => sum + item.pairs.length, 0);
      onRound();
    }
  } finally {
    await thread?.close();
  }
}
