import { countFacets } from '../db/repositories/clusterFacets';
import type { Db } from '../db/connection';
import { savePixelPrints, tierFactsOf, untieredPairs, writePairTiers, type TierFactsRow } from '../db/repositories/duplicates';
import { decodePrint, encodePrint, pixelPrintOf } from '../lib/media/pixelPrint';
import { tierOfPair, type PixelPrint, type TierFacts } from '../lib/quality/pixelMatch';
import { blobKey, type ObjectStore } from '../lib/storage/objectStore';

/** Pairs decided per round: their two copies' prints are held at once. */
const PAIRS_PER_ROUND = 500;
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
  for (let start = 0; start < missing.length; start += PRINT_CONCURRENCY) {
    await Promise.all(
      missing.slice(start, start + PRINT_CONCURRENCY).map(async (row) => {
        // A thumbnail that cannot be read or decoded leaves the pair to the embedding (similar), as for a media item without one.
        const print = await store
          .get(blobKey(row.thumbSha256!))
          .then(pixelPrintOf)
          .catch(() => null);
        prints.set(row.id, print);
        if (print) made.push({ mediaId: row.id, print: encodePrint(print) });
      }),
    );
  }
  await savePixelPrints(db, versionId, made);
  return prints;
}

/**
 * Decides the tier of every pair of the version the analysis wrote without one (lib/quality/pixelMatch.ts): the same
 * bytes are exact, thumbnails whose pixels match near-identical, the rest similar. Safe to repeat: tiered pairs are skipped.
 */
export async function tierDuplicatePairs(deps: { db: Db; store: ObjectStore }, versionId: string, onRound: () => void = () => {}): Promise<number> {
  const { db, store } = deps;
  let tiered = 0;
  let after: string | null = null;
  for (;;) {
    const pairs = await untieredPairs(db, versionId, after, PAIRS_PER_ROUND);
    if (pairs.length === 0) {
      // Tiers move pairs between issue types, which forgot the version's issue counts: counted again, as the analysis left them.
      if (tiered > 0) await countFacets(db, versionId);
      return tiered;
    }
    const rows = await tierFactsOf(db, versionId, [...new Set(pairs.flatMap((pair) => [pair.mediaId, pair.duplicateOf]))]);
    const prints = await printsOf(db, store, versionId, rows);
    const facts = new Map<string, TierFacts>(rows.map((row) => [row.id, { ...row, print: prints.get(row.id) ?? null }]));
    const tiers = pairs.flatMap((pair) => {
      const item = facts.get(pair.mediaId);
      const other = facts.get(pair.duplicateOf);
      return item && other ? [{ mediaId: pair.mediaId, ...tierOfPair(item, other, pair.similarity) }] : [];
    });
    await writePairTiers(db, versionId, tiers);
    tiered += tiers.length;
    after = pairs[pairs.length - 1].mediaId;
    onRound();
  }
}
