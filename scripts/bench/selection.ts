/**
 * `npm run bench:selection [-- POOL | --million]`: whether the selection strategies (lib/selection/selectItems.ts, issue 52) choose
 * items that teach a classifier more than random picks. Fashion-MNIST's test images (scripts/fetch-labelled-images.sh:
 * "train" rows are the pool, "test" rows are held back) are embedded by the service's image model as ingestion embeds
 * them (cached in bench/data). For budgets of 50, 100, 200 and 500, each strategy chooses from the pool with the labels
 * held back; a 1-nearest-neighbour classifier on the chosen items' labels is scored on the test part, against the mean
 * of 5 random draws of the same budget in the same run. The classifier's ceiling (every pool item labelled) is reported
 * too. Then the task's code chooses 10,000 of 1,000,000 synthetic embeddings of the model's dimension, sketched batch
 * by batch as the task reads them, timed. Results: bench/results/selection/selection-<date>.json. With `--million`,
 * only the timing, to selection-million-<date>.json.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { loadImageEncoder } from '../../lib/ml/imageEncoder';
import { projectRoot } from '../../lib/projectRoot';
import { shuffled } from '../../lib/map/shuffled';
import { seededRandom } from '../../lib/map/seededRandom';
import { chooseItems, sketchVectors, SKETCH_DIM } from '../../lib/selection/chooseItems';
import { bytesToVectors, vectorsToBytes } from '../../lib/vectors/vectorBytes';
import type { SelectionStrategy } from '../../lib/selection/selectItems';
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

const MILLION = 1_000_000;
const MILLION_BUDGET = 10_000;
/** Rows the task reads from the vector store at once (services/selection.ts). */
const READ_BATCH = 1_000;

/** CPU seconds (every thread of the process) since `since`. */
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

/** Items per chunk of the task's pool (ANALYSIS_CHUNK_SIZE's default): what one readSelectionChunk activity reads and stores. */
const CHUNK_ITEMS = 10_000;

/**
 * Seconds (wall and CPU) the task's code takes to choose MILLION_BUDGET of MILLION synthetic embeddings in `dim`
 * dimensions (each near one of 1,000 random centres), per strategy, as the task spread over workers runs it
 * (services/selectionChunks.ts): each chunk's vectors sketched batch by batch as read and stored as bytes (the chunk
 * phase, which the workers share), then every chunk read back and the choice made (the final step). The vectors are made
 * batch by batch and only their sketches kept, as the task keeps them.
 */
async function selectFromMillion(dim: number, strategies: readonly SelectionStrategy[]) {
  const random = seededRandom(1_000_000);
  const centres = Array.from({ length: 1_000 }, () => Float32Array.from({ length: dim }, () => random() - 0.5));
  const noise = Array.from({ length: 4_096 }, () => Float32Array.from({ length: dim }, () => random() - 0.5));
  const parts: Buffer[] = [];
  // What the sketches were, to show the choice reads back exactly them.
  const sketches = createHash('sha256');
  let chunk: Float32Array[] = [];
  let [chunkSeconds, chunkCpu] = [0, 0];
  for (let start = 0; start < MILLION; start += READ_BATCH) {
    const batch = Array.from({ length: READ_BATCH }, () => {
      const [centre, a, b] = [centres[Math.floor(random() * centres.length)], noise[Math.floor(random() * noise.length)], noise[Math.floor(random() * noise.length)]];
      const vector = Float32Array.from(centre, (value, d) => value + 0.6 * a[d] + 0.6 * b[d]);
      const norm = Math.hypot(...vector);
      return vector.map((value) => value / norm);
    });
    const [started, cpu] = [performance.now(), process.cpuUsage()];
    chunk.push(...sketchVectors(batch, dim, 52));
    if (chunk.length === CHUNK_ITEMS || start + READ_BATCH >= MILLION) {
      parts.push(vectorsToBytes(chunk));
      sketches.update(vectorsToBytes(chunk));
      chunk = [];
    }
    chunkSeconds += (performance.now() - started) / 1000;
    chunkCpu += cpuSeconds(cpu);
    if (start % 200_000 === 0) say(`  made ${start + READ_BATCH} of ${MILLION} synthetic embeddings`);
  }
  say(`  chunk phase: ${MILLION} embeddings of ${dim} dimensions sketched and stored as ${parts.length} chunks in ${chunkSeconds.toFixed(1)} s (${chunkCpu.toFixed(1)} s of CPU)`);
  const [readStarted, readCpu] = [performance.now(), process.cpuUsage()];
  const vectors: Float32Array[] = [];
  for (const part of parts) for (const vector of bytesToVectors(part, part.length / 4 / SKETCH_DIM)) vectors.push(vector);
  const [readSeconds, readCpuSeconds] = [(performance.now() - readStarted) / 1000, cpuSeconds(readCpu)];
  const readBack = createHash('sha256');
  for (let start = 0; start < vectors.length; start += CHUNK_ITEMS) readBack.update(vectorsToBytes(vectors.slice(start, start + CHUNK_ITEMS)));
  if (readBack.digest('hex') !== sketches.digest('hex')) throw new Error('the chunks read back differ from the sketches stored');
  say(`  final step: ${parts.length} chunks read back in ${readSeconds.toFixed(1)} s (${readCpuSeconds.toFixed(1)} s of CPU)`);
  const [wall, cpu, choice, choiceCpu]: Record<string, number>[] = [{}, {}, {}, {}];
  const picks: Record<string, string> = {};
  for (const strategy of strategies) {
    const [started, cpuStart] = [performance.now(), process.cpuUsage()];
    const chosen = await chooseItems({ vectors, dim: vectors[0].length }, { weights: { [strategy]: 1 }, count: MILLION_BUDGET, seed: 52 });
    if (new Set(chosen.map((pick) => pick.index)).size !== MILLION_BUDGET) throw new Error(`${strategy} chose ${chosen.length} items, not ${MILLION_BUDGET} different ones`);
    choice[strategy] = round3((performance.now() - started) / 1000);
    picks[strategy] = createHash('sha256').update(Int32Array.from(chosen, (pick) => pick.index)).digest('hex').slice(0, 16);
    choiceCpu[strategy] = round3(cpuSeconds(cpuStart));
    wall[strategy] = round3(chunkSeconds + readSeconds + choice[strategy]);
    cpu[strategy] = round3(chunkCpu + readCpuSeconds + choiceCpu[strategy]);
    say(`  ${strategy}: ${MILLION_BUDGET} of ${MILLION} in ${wall[strategy]} s, ${cpu[strategy]} s of CPU (chunks included; the choice ${choice[strategy]} s), load ${os.loadavg()[0].toFixed(1)}`);
  }
  const chunks = { chunks: parts.length, chunk_phase_seconds: round3(chunkSeconds), chunk_phase_cpu_seconds: round3(chunkCpu), read_back_seconds: round3(readSeconds), read_back_identical: true, picks_sha256: picks };
  return { wall, cpu, choice, choiceCpu, chunks };
}

/** The model's dimension (of the cached embeddings) and the load, then the 1,000,000-item timing alone. */
async function millionOnly(dim: number): Promise<void> {
  const million = await selectFromMillion(dim, ['typicality', 'representative', 'diversity']);
  writeReport('selection', 'selection-million', {
    date: new Date().toISOString(),
    machine: benchMachine(),
    select_10000_of_1000000_seconds: Math.max(...Object.values(million.wall)),
    select_10000_of_1000000_by_strategy: million.wall,
    select_10000_of_1000000_cpu_seconds: Math.max(...Object.values(million.cpu)),
    select_10000_of_1000000_cpu_seconds_by_strategy: million.cpu,
    select_10000_of_1000000_choice_seconds_by_strategy: million.choice,
    select_10000_of_1000000_choice_cpu_seconds_by_strategy: million.choiceCpu,
    select_10000_of_1000000_chunks: million.chunks,
    load_average: os.loadavg().map((value) => Math.round(value * 10) / 10),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  } as { date: string });
}

async function main(): Promise<void> {
  const timingOnly = process.argv[2] === '--million';
  const size = timingOnly ? 10_000 : Number(process.argv[2] ?? 10_000);
  const items = labelledSet(size);
  say(`bench:selection: ${items.length} Fashion-MNIST test images on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const { vectors, dim } = await embeddings(items);
  const poolIndexes = items.flatMap((item, i) => (item.split === 'test' ? [] : [i]));
  const test = items.flatMap((item, i) => (item.split === 'test' ? [i] : []));
  const labels = items.map((item) => item.label);
  const pool = { vectors: poolIndexes.map((i) => vectors[i]), dim };
  say(`  pool ${poolIndexes.length}, held-back test ${test.length}, ${dim} dimensions`);
  if (timingOnly) return millionOnly(dim);

  const accuracyOf: Record<string, Record<number, number>> = {};
  const classesOf: Record<string, Record<number, number>> = {};
  const secondsOf: Record<string, Record<number, number>> = {};
  for (const strategy of STRATEGIES) {
    accuracyOf[strategy] = {};
    classesOf[strategy] = {};
    secondsOf[strategy] = {};
    for (const budget of BUDGETS) {
      const started = performance.now();
      const chosen = (await chooseItems(pool, { weights: { [strategy]: 1 }, count: budget, seed: 52 })).map((pick) => poolIndexes[pick.index]);
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
  const million = await selectFromMillion(dim, ['typicality', 'representative', 'diversity']);
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
    select_10000_of_1000000_seconds: Math.max(...Object.values(million.wall)),
    select_10000_of_1000000_by_strategy: million.wall,
    select_10000_of_1000000_cpu_seconds: Math.max(...Object.values(million.cpu)),
    select_10000_of_1000000_cpu_seconds_by_strategy: million.cpu,
    select_10000_of_1000000_method:
      `${MILLION} synthetic unit vectors of ${dim} dimensions (1,000 random centres plus noise), made and sketched to 128 dimensions in batches of ${READ_BATCH} ` +
      `as the SELECTION task reads them, stored as bytes per chunk of ${CHUNK_ITEMS} and read back, as the task spread over workers does; ` +
      'seconds (wall, and CPU of every thread) of the chunk phase (in one process here) plus the read-back plus chooseItems, per strategy (the slowest is the headline). ' +
      'The machine is shared: wall seconds grow with its load (load_average), CPU seconds much less',
    real_photos: 'not measured: the evaluation photos (bench/eval/photos.json, 53) carry COCO object lists, not one class each, and are fewer than the smallest budget',
    load_average: os.loadavg().map((value) => Math.round(value * 10) / 10),
    peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
  } as { date: string });
}

runBench(main);
