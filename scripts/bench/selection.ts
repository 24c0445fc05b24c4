/**
 * `npm run bench:selection [-- POOL]`: whether the selection strategies (lib/selection/selectItems.ts, issue 52) choose
 * items that teach a classifier more than random picks. Fashion-MNIST's test images (scripts/fetch-labelled-images.sh:
 * "train" rows are the pool, "test" rows are held back) are embedded by the service's image model as ingestion embeds
 * them (cached in bench/data). For budgets of 50, 100, 200 and 500, each strategy chooses from the pool with the labels
 * held back; a 1-nearest-neighbour classifier on the chosen items' labels is scored on the test part, against the mean
 * of 5 random draws of the same budget in the same run. The classifier's ceiling (every pool item labelled) is reported
 * too. Results: bench/results/selection/selection-<date>.json.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { loadImageEncoder } from '../../lib/ml/imageEncoder';
import { projectRoot } from '../../lib/projectRoot';
import { shuffled } from '../../lib/map/shuffled';
import { selectItems, type SelectionStrategy } from '../../lib/selection/selectItems';
import { benchMachine, runBench, say, writeReport } from './common';

const BUDGETS = [50, 100, 200, 500];
const STRATEGIES: SelectionStrategy[] = ['typicality', 'representative', 'diversity', 'uniqueness'];
const RANDOM_DRAWS = 5;

interface Item {
  file: string;
  label: string;
  split: string;
}

/** The labelled set's rows, fetched when missing. */
function labelledSet(count: number): Item[] {
  const dir = path.join(projectRoot(), '.tools', 'labelled-images');
  execFileSync('bash', [path.join(projectRoot(), 'scripts', 'fetch-labelled-images.sh'), String(count)], { stdio: ['ignore', 'ignore', 'inherit'] });
  const rows = fs.readFileSync(path.join(dir, 'labels.csv'), 'utf8').trim().split('\n').slice(1, count + 1);
  return rows.map((row) => {
    const [file, label, split] = row.split(',');
    return { file: path.join(dir, file), label, split };
  });
}

/** Every item's embedding by the configured image model, cached per model and set size. */
async function embeddings(items: Item[]): Promise<{ vectors: Float32Array[]; dim: number }> {
  const config = loadConfig(process.env);
  const cache = path.join(projectRoot(), 'bench', 'data', `selection-${config.models.imageModel}-${items.length}.f32`);
  if (!fs.existsSync(cache)) {
    const encoder = await loadImageEncoder(config.models.dir, config.models.imageModel, os.cpus().length);
    const vectors: Float32Array[] = [];
    for (let start = 0; start < items.length; start += 64) {
      vectors.push(...(await encoder.encode(items.slice(start, start + 64).map((item) => item.file))));
      if (start % 1024 === 0) say(`  embedded ${start + Math.min(64, items.length - start)} of ${items.length}`);
    }
    await encoder.close();
    fs.mkdirSync(path.dirname(cache), { recursive: true });
    fs.writeFileSync(cache, Buffer.concat(vectors.map((vector) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength))));
  }
  const bytes = fs.readFileSync(cache);
  const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const dim = all.length / items.length;
  return { vectors: items.map((_, i) => all.slice(i * dim, (i + 1) * dim)), dim };
}

/** Accuracy on the test items of a 1-nearest-neighbour classifier that knows the labels of `chosen` only. */
function accuracy(vectors: Float32Array[], labels: string[], chosen: number[], test: number[]): number {
  let right = 0;
  for (const t of test) {
    let best = -Infinity;
    let guess = '';
    for (const c of chosen) {
      let similarity = 0;
      const [a, b] = [vectors[t], vectors[c]];
      for (let d = 0; d < a.length; d++) similarity += a[d] * b[d];
      if (similarity > best) [best, guess] = [similarity, labels[c]];
    }
    if (guess === labels[t]) right++;
  }
  return right / test.length;
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? 10_000);
  const items = labelledSet(size);
  say(`bench:selection: ${items.length} Fashion-MNIST test images on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const { vectors, dim } = await embeddings(items);
  const poolIndexes = items.flatMap((item, i) => (item.split === 'test' ? [] : [i]));
  const test = items.flatMap((item, i) => (item.split === 'test' ? [i] : []));
  const labels = items.map((item) => item.label);
  const pool = { vectors: poolIndexes.map((i) => vectors[i]), dim };
  say(`  pool ${poolIndexes.length}, held-back test ${test.length}, ${dim} dimensions`);

  const accuracyOf: Record<string, Record<number, number>> = {};
  const classesOf: Record<string, Record<number, number>> = {};
  const secondsOf: Record<string, Record<number, number>> = {};
  for (const strategy of STRATEGIES) {
    accuracyOf[strategy] = {};
    classesOf[strategy] = {};
    secondsOf[strategy] = {};
    for (const budget of BUDGETS) {
      const started = performance.now();
      const chosen = selectItems(pool, strategy, budget, 52).map((pick) => poolIndexes[pick.index]);
      secondsOf[strategy][budget] = round3((performance.now() - started) / 1000);
      accuracyOf[strategy][budget] = round3(accuracy(vectors, labels, chosen, test));
      classesOf[strategy][budget] = new Set(chosen.map((i) => labels[i])).size;
      say(`  ${strategy} ${budget}: accuracy ${accuracyOf[strategy][budget]}, ${classesOf[strategy][budget]} classes, ${secondsOf[strategy][budget]} s`);
    }
  }
  const ceiling = round3(accuracy(vectors, labels, poolIndexes, test));
  say(`  every pool item labelled: accuracy ${ceiling}`);
  const randomAccuracy: Record<number, { mean: number; min: number; max: number; draws: number[] }> = {};
  const gain: Record<number, { best_strategy: string; gain: number }> = {};
  for (const budget of BUDGETS) {
    const draws = Array.from({ length: RANDOM_DRAWS }, (_, draw) => round3(accuracy(vectors, labels, shuffled(poolIndexes, 1000 + draw).slice(0, budget), test)));
    const mean = draws.reduce((sum, value) => sum + value, 0) / draws.length;
    randomAccuracy[budget] = { mean: round3(mean), min: Math.min(...draws), max: Math.max(...draws), draws };
    const best = STRATEGIES.reduce((top, strategy) => (accuracyOf[strategy][budget] > accuracyOf[top][budget] ? strategy : top), STRATEGIES[0]);
    gain[budget] = { best_strategy: best, gain: round3(accuracyOf[best][budget] - mean) };
    say(`  random ${budget}: mean ${round3(mean)} (${Math.min(...draws)}-${Math.max(...draws)}); best ${best} +${gain[budget].gain}`);
  }
  writeReport('selection', 'selection', {
    date: new Date().toISOString(),
    machine: benchMachine(),
    method:
      `Fashion-MNIST test images (${items.length}; split "train" is the pool, "test" held back), embedded by the service's image model. Each strategy chooses a budget ` +
      `from the pool with labels held back (seed 52); a 1-nearest-neighbour classifier (cosine) on the chosen items' labels is scored on the held-back part. ` +
      `Random: ${RANDOM_DRAWS} seeded draws of the same budget.`,
    pool: poolIndexes.length,
    test: test.length,
    budgets: BUDGETS,
    accuracy: accuracyOf,
    classes_covered: classesOf,
    random_accuracy: randomAccuracy,
    accuracy_gain_vs_random: gain,
    accuracy_with_every_pool_item_labelled: ceiling,
    seconds: secondsOf,
    select_10000_of_1000000_seconds: null,
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  } as { date: string });
}

runBench(main);
