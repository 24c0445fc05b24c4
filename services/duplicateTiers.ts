import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import pLimit from 'p-limit';
import { countFacets } from '../db/repositories/clusterFacets';
import type { Db } from '../db/connection';
import { savePixelPrints, tierFactsOf, untieredPairs, writePairTiers, type TieredPairs, type TierFactsRow, type UntieredPairs } from '../db/repositories/duplicates';
import { decodePrint, encodePrint, pixelPrintOf } from '../lib/media/pixelPrint';
import { betterPairFirst, matchPrints, reversedMatch, tierOfPair, type PixelPrint, type PrintMatch, type TierFacts } from '../lib/quality/pixelMatch';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';

/** Media items whose pairs (up to NEIGHBOUR_SCORING.duplicatePairs each) are decided per round: their copies' prints are held at once. */
const ITEMS_PER_ROUND = 200;
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

/**
 * matchPrints of media items' prints that matches two items once for both sides of their pair (an item and its copy
 * often name each other), across rounds: a match is kept, reversed, until its other side asks for it.
 */
function matchingOnce(): (itemId: string, otherId: string) => (a: PixelPrint, b: PixelPrint) => PrintMatch {
  const reversed = new Map<string, PrintMatch>();
  return (itemId, otherId) => (a, b) => {
    const key = `${itemId}:${otherId}`;
    const known = reversed.get(key);
    if (known) {
      reversed.delete(key);
      return known;
    }
    const match = matchPrints(a, b);
    if (reversed.size >= MATCHES_KEPT) reversed.delete(reversed.keys().next().value!);
    reversed.set(`${otherId}:${itemId}`, reversedMatch(match));
    return match;
  };
}

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

/** The round's pairs with their tiers, each item's best first; the event loop is let through after each item (the next round's prints are made meanwhile). */
async function tiersOf({ items, facts }: Round, matchOf: ReturnType<typeof matchingOnce>): Promise<TieredPairs[]> {
  const tiers: TieredPairs[] = [];
  for (const { mediaId, pairs } of items) {
    const item = facts.get(mediaId);
    const decided = pairs.flatMap((pair) => {
      const other = facts.get(pair.duplicateOf);
      return item && other ? [{ mediaId, ...pair, ...tierOfPair(item, other, pair.similarity, matchOf(mediaId, pair.duplicateOf)) }] : [];
    });
    if (decided.length > 0) tiers.push({ mediaId, pairs: decided.sort(betterPairFirst) });
    await setImmediatePromise();
  }
  return tiers;
}

/**
 * Decides the tier of every pair of the version the analysis wrote without one (lib/quality/pixelMatch.ts): the same
 * bytes are exact, thumbnails whose pixels match near-identical, the rest similar. Each media item's pairs are written
 * best first, so its issue names its best pair. Safe to repeat: tiered items are skipped. Returns the pairs tiered.
 * A round's pairs are matched (JavaScript, this thread) while the next round's thumbnails are read and printed (libvips'
 * threads): the two overlap on the cores.
 */
export async function tierDuplicatePairs(deps: { db: Db; store: ObjectStore }, versionId: string, onRound: () => void = () => {}): Promise<number> {
  const { db } = deps;
  let tiered = 0;
  const matchOf = matchingOnce();
  let next = roundAfter(deps, versionId, null);
  for (;;) {
    const round = await next;
    if (!round) {
      // Tiers move pairs between issue types, which forgot the version's issue counts: counted again, as the analysis left them.
      if (tiered > 0) await countFacets(db, versionId);
      return tiered;
    }
    // Rounds are of the media items after this one's: its tiers, written below, change none of theirs.
    next = roundAfter(deps, versionId, round.items[round.items.length - 1].mediaId);
    // A failure of this round leaves the next one unread: its own failure is not reported on its own.
    next.catch(() => {});
    const tiers = await tiersOf(round, matchOf);
    await writePairTiers(db, versionId, tiers);
    tiered += tiers.reduce((sum, item) => sum + item.pairs.length, 0);
    onRound();
  }
}
