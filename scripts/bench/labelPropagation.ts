/**
 * `npm run bench:label-propagation [-- MEDIA]`: a READY dataset of MEDIA images (default 100,000)
 * made straight in Postgres with synthetic 1280-d vectors in the embedded index (1,000 centres, about
 * 100 images around each), then the LABEL_PROPAGATION activity (neighbour search in the index, one
 * transaction of writes) from 100, 1,000 and 10,000 seeds. The peer in the same run is an exhaustive
 * scan of every vector for the same 100 seeds, which also gives the agreement of the two.
 * Results go to bench/results/label-propagation/label-propagation-<MEDIA>-<date>.json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createLabelPropagationActivities } from '../../activities/labelPropagation';
import type { PropagationResult } from '../../services/labels';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { loadConfig } from '../../lib/config';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { createVectorStore } from '../../lib/vectors/createVectorStore';
import { imageCollection } from '../../lib/vectors/vectorStore';
import type { LabelPropagationInput } from '../../workflows/contracts';
import { benchMachine, say, timed, withBenchDatabase, writeReport, runBench } from './common';
import { seedSyntheticDataset, writeSyntheticImageVectors } from './syntheticDataset';

const media = Number(process.argv[2] ?? 100_000);
const DIM = 1280;
const MIN_SIMILARITY = 0.85;
const MAX_NEIGHBOURS = 50;

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

async function main(): Promise<void> {
  say(`bench:label-propagation: ${media} media on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-labels-data-'));
  try {
    await withBenchDatabase('label-propagation', async (db) => {
      const config = loadConfig({ ...process.env, DATA_DIR: dataDir });
      const vectors = createVectorStore(config, createVectorPointRows(db), { objects: createObjectStore(config), role: 'worker' });
      try {
        const { datasetId, versionId } = await seedSyntheticDataset(db, media, DIM);
        const ids = await writeSyntheticImageVectors(db, vectors, { datasetId, versionId, dim: DIM });
        const activities = createLabelPropagationActivities({ db, vectors });
        const propagate = (label: string, seeds: string[]) =>
          timed(async () => {
            const input: LabelPropagationInput = {
              taskId: randomUUID(),
              datasetId,
              label,
              selection: { mediaIds: seeds },
              minSimilarity: MIN_SIMILARITY,
              maxNeighbours: MAX_NEIGHBOURS,
              previousStatus: 'READY',
            };
            return (await new MockActivityEnvironment().run(activities.propagateLabel, input)) as PropagationResult;
          });
        // The index is loaded by the first search, as in a worker: not counted in the runs below.
        const warm = await timed(async () => vectors.searchMany(imageCollection(datasetId), [(await vectors.get(imageCollection(datasetId), [ids[0]])).get(ids[0])!], 1));
        say(`  index ready: ${warm.seconds.toFixed(1)} s`);
        // Consecutive ids sit around different centres (id i around centre i mod 1,000), so seeds are rarely each other's neighbours.
        const seedsOf = (count: number) => ids.slice(0, count);
        const runs = [];
        for (const count of [100, 1_000, 10_000]) {
          const run = await propagate(`seeds-${count}`, seedsOf(count));
          say(`  ${count} seeds: ${run.value.propagated} media labelled by propagation in ${run.seconds.toFixed(2)} s`);
          runs.push({ seeds: count, propagated: run.value.propagated, seconds: run.seconds });
        }

        const seeds = seedsOf(100);
        const stored = await vectors.get(imageCollection(datasetId), ids);
        const exhaustive = await timed(async () => {
          const found = new Set<string>();
          for (const seed of seeds) {
            const query = stored.get(seed)!;
            const scored = ids.filter((id) => id !== seed).map((id) => ({ id, similarity: dot(query, stored.get(id)!) }));
            scored.sort((a, b) => b.similarity - a.similarity);
            for (const hit of scored.slice(0, MAX_NEIGHBOURS)) if (hit.similarity >= MIN_SIMILARITY && !seeds.includes(hit.id)) found.add(hit.id);
          }
          return found;
        });
        const labelled = new Set<string>(await db('media_labels').where({ version_id: versionId, label: 'seeds-100', source: 'propagated' }).pluck('media_id'));
        const agreed = [...exhaustive.value].filter((id) => labelled.has(id)).length;
        const recall = agreed / Math.max(1, exhaustive.value.size);
        const precision = agreed / Math.max(1, labelled.size);
        say(`  peer, exhaustive scan for 100 seeds: ${exhaustive.seconds.toFixed(2)} s (${(exhaustive.seconds / runs[0].seconds).toFixed(1)}x the index's time); recall ${recall.toFixed(4)}, precision ${precision.toFixed(4)}`);
        writeReport('label-propagation', `label-propagation-${media}`, {
          date: new Date().toISOString(),
          machine: benchMachine(),
          method:
            `Synthetic READY dataset in Postgres, ${media} images with ${DIM}-d vectors around 1,000 centres (similarity about 0.92 within a centre) in the embedded index. ` +
            `propagateLabel (the LABEL_PROPAGATION activity: neighbour search, one transaction of writes) run under MockActivityEnvironment, min_similarity ${MIN_SIMILARITY}, max_neighbours ${MAX_NEIGHBOURS}. ` +
            'The peer is an exhaustive dot-product scan of every vector for the same 100 seeds, which also measures agreement.',
          media,
          index_ready_seconds: warm.seconds,
          runs,
          peer_exhaustive_100_seeds_seconds: exhaustive.seconds,
          speedup_over_peer_100_seeds: exhaustive.seconds / runs[0].seconds,
          agreement_with_exhaustive: { recall, precision, exhaustive: exhaustive.value.size, labelled: labelled.size },
        } as { date: string });
      } finally {
        await vectors.close();
      }
    });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
