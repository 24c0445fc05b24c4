/**
 * `npm run bench:duplicates [-- GROUPS]`: a READY dataset whose images form GROUPS near-duplicate
 * pairs (default 10,000) among other images, made straight in Postgres; then "Accept all
 * suggestions" (the service behind POST …/duplicates/accept_suggestions) decides every group, and
 * the first review page is read. The peer in the same run is what the review offered before: one
 * request per group, here one decideDuplicates call per group on a fresh copy of the same pairs.
 * Results go to bench/results/duplicates/duplicates-<GROUPS>-<date>.json.
 */
import os from 'node:os';
import type { Db } from '../../db/connection';
import { requireDataset } from '../../services/datasetAccess';
import { acceptSuggestions, decideDuplicates, reviewDuplicates } from '../../services/duplicates';
import { DEFAULT_TIERS } from '../../lib/quality/pixelMatch';
import { benchMachine, say, timed, withBenchDatabase, writeReport, runBench } from './common';
import { seedSyntheticDataset } from './syntheticDataset';

const groups = Number(process.argv[2] ?? 10_000);

/** A dataset of 2 × `pairs` + 10 % more images in which image 2k+1 is a smaller copy of image 2k. */
async function seedPairs(db: Db, pairs: number): Promise<string> {
  const { datasetId, versionId } = await seedSyntheticDataset(db, Math.round(pairs * 2.2), 8);
  await db('media_issues').where({ version_id: versionId, issue_type: 'duplicates' }).delete();
  await db.raw(
    `WITH numbered AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM media WHERE version_id = ?)
     UPDATE media m SET width = CASE WHEN numbered.n % 2 = 0 THEN 1280 ELSE 640 END, size_bytes = CASE WHEN numbered.n % 2 = 0 THEN 400000 ELSE 90000 END
       FROM numbered WHERE m.version_id = ? AND m.id = numbered.id`,
    [versionId, versionId],
  );
  await db.raw(
    `WITH numbered AS (SELECT id, row_number() OVER (ORDER BY id) - 1 AS n FROM media WHERE version_id = ?)
     INSERT INTO media_issues (version_id, media_id, issue_type, confidence, details)
     SELECT ?, copy.id, 'duplicates', 0.97, jsonb_build_object('similarity', 0.97, 'duplicate_of', original.id, 'tier', 'near_identical', 'reason', 'same picture at 60 % size')
       FROM numbered copy JOIN numbered original ON original.n = copy.n - 1
      WHERE copy.n % 2 = 1 AND copy.n < ?`,
    [versionId, versionId, pairs * 2],
  );
  return datasetId;
}

async function main(): Promise<void> {
  say(`bench:duplicates: ${groups} groups on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  await withBenchDatabase('duplicates', async (db, user) => {
    const dataset = await requireDataset(db, await seedPairs(db, groups), user.id);
    const firstPage = await timed(() => reviewDuplicates(db, dataset, { similarity: 0.9, tiers: DEFAULT_TIERS, state: 'open', page: 0, pageSize: 50 }));
    say(`  first review page (${firstPage.value.total} open groups): ${(firstPage.seconds * 1000).toFixed(0)} ms`);
    const accepted = await timed(() => acceptSuggestions(db, dataset, user, { similarity: 0.9, tiers: DEFAULT_TIERS }));
    say(`  accept all suggestions: ${accepted.value.decidedGroups} groups in ${accepted.seconds.toFixed(2)} s`);
    const decidedPage = await timed(() => reviewDuplicates(db, dataset, { similarity: 0.9, tiers: DEFAULT_TIERS, state: 'decided', page: 0, pageSize: 50 }));
    say(`  first decided page (${decidedPage.value.total} groups): ${(decidedPage.seconds * 1000).toFixed(0)} ms`);

    const peerDataset = await requireDataset(db, await seedPairs(db, groups), user.id);
    const open = await reviewDuplicates(db, peerDataset, { similarity: 0.9, tiers: DEFAULT_TIERS, state: 'open', page: 0, pageSize: groups });
    const peer = await timed(async () => {
      for (const group of open.groups) {
        const ids = group.members.map((member) => member.id);
        await decideDuplicates(db, peerDataset, user, [{ mediaIds: ids, verdict: 'duplicates', keep: [group.suggestion.mediaId] }]);
      }
    });
    say(`  peer, one decision per group: ${peer.seconds.toFixed(2)} s; accept-all is ${(peer.seconds / accepted.seconds).toFixed(1)}x faster`);
    writeReport('duplicates', `duplicates-${groups}`, {
      date: new Date().toISOString(),
      machine: benchMachine(),
      method:
        'Synthetic READY dataset in Postgres: 2.2 × GROUPS images, GROUPS pairs of an original (1280 px, 400 kB) and a copy (640 px, 90 kB) at similarity 0.97. ' +
        'acceptSuggestions and reviewDuplicates are the services behind the API; the peer decides the same groups of a second such dataset one decideDuplicates call each.',
      groups,
      first_review_page_ms: firstPage.seconds * 1000,
      accept_all: { seconds: accepted.seconds, decided_groups: accepted.value.decidedGroups, discarded_media: accepted.value.discardedMedia },
      first_decided_page_ms: decidedPage.seconds * 1000,
      peer_one_request_per_group_seconds: peer.seconds,
      speedup_over_peer: peer.seconds / accepted.seconds,
    } as { date: string });
  });
}

runBench(main);
