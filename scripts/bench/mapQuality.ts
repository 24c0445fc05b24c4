/**
 * `npm run bench:map-quality [-- N] [--photos M] [--sample S] [--added F]`: how well the map keeps neighbours. Embeds N Fashion-MNIST
 * photos (scripts/fetch-labelled-images.sh, 10 classes) and M bench photos (prepareImages: variants of ~110 photos,
 * each photo's variants one family of near-copies) with the image model, builds their kNN graph as the analysis does
 * (GRAPH_K nearest by cosine, exact), lays the map out with layoutMap (the analysis's code) and reports, per set:
 * - neighbourhood preservation: the share of each point's 10 nearest map points among its 10 nearest by embedding;
 * - same-class share: the share of each point's 10 nearest map points in its own class (family for the photos), beside
 *   the same share of its 10 nearest by embedding (what a perfect map would keep);
 * - family spread (photos): the mean distance of a family's points from their centre over that of all points from theirs;
 * - the layout's wall and CPU seconds. `--sample S` lays each set out again from a UMAP sample of S points, the rest
 *   placed from their neighbours (the path of sets over MAP_SAMPLE_SIZE). `--added F` also lays each set out without a
 *   share F of its items, adds them as add_media does and reports their shares (addedItems). Results go to
 *   bench/results/map-quality/map-quality-<date>.
 *
 * `npm run bench:map-quality -- --scale 10000,1000000 [--sample S]`: instead, the layout's wall and CPU seconds and
 * peak RSS at those sizes, each in a process of its own, for synthetic items of the model's dimension
 * (syntheticMapInput) through layoutMap as the MAP_LAYOUT task runs it. Results go to …/map-layout-time-<date>.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { exactSearch, MetricKind, type BatchMatches } from 'usearch';
import { GRAPH_K } from '../../lib/clustering/knnGraph';
import { loadConfig } from '../../lib/config';
import { loadImageEncoderInThread } from '../../lib/ml/encoderThread';
import { layoutMap, placedSample, placeItems, refineAddedItems, surroundingsOf } from '../../lib/map/layoutMap';
import type { Neighbour } from '../../lib/map/placeFromNeighbours';
import { unitVector } from '../../lib/map/embedSample';
import { projectRoot } from '../../lib/projectRoot';
import { vectorMatrix } from '../../lib/vectors/vectorMatrix';
import { benchMachine, prepareImages, runBench, say, writeReport } from './common';
import { mapNeighbours } from '../../lib/map/mapNeighbours';
import { MODEL_DIM, syntheticMapInput } from './syntheticMapInput';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: { photos: { type: 'string', default: '1000' }, sample: { type: 'string' }, added: { type: 'string' }, scale: { type: 'string' }, 'layout-points': { type: 'string' } },
});
const fashionCount = Number(positionals[0] ?? 1000);
const photoCount = Number(options.photos);
const MEASURED_NEIGHBOURS = 10;

interface LabelledSet {
  name: string;
  files: string[];
  /** Each file's class (Fashion-MNIST) or family (the variants of one photo). */
  classes: string[];
  families: boolean;
}

function fashionSet(count: number): LabelledSet {
  execFileSync('bash', [path.join(projectRoot(), 'scripts', 'fetch-labelled-images.sh'), String(count)], { stdio: 'inherit' });
  const dir = path.join(projectRoot(), '.tools', 'labelled-images');
  const rows = fs.readFileSync(path.join(dir, 'labels.csv'), 'utf8').trim().split('\n').slice(1, count + 1).map((line) => line.split(','));
  return { name: `fashion-mnist-${count}`, files: rows.map(([file]) => path.join(dir, file)), classes: rows.map(([, label]) => label), families: false };
}

async function photoSet(count: number): Promise<LabelledSet> {
  const files = await prepareImages(count);
  const photos = fs.readdirSync(path.join(projectRoot(), 'bench', 'data', 'photos')).length;
  // prepareImages makes image i from photo i % photos.
  return { name: `photos-${count}`, files, classes: files.map((_, i) => String(i % photos)), families: true };
}

/** Each unit vector's GRAPH_K nearest others by cosine, nearest first, as the analysis's kNN graph holds them. */
function knnGraph(vectors: Float32Array[]): Neighbour[][] {
  const dim = vectors[0].length;
  const matrix = vectorMatrix(vectors, dim);
  const found = exactSearch(matrix, matrix, dim, GRAPH_K + 1, MetricKind.Cos) as BatchMatches;
  return vectors.map((_, i) => {
    const row: Neighbour[] = [];
    for (let h = 0; h < found.k && row.length < GRAPH_K; h++) {
      const index = Number(found.keys[i * found.k + h]);
      if (index !== i) row.push({ index, similarity: 1 - found.distances[i * found.k + h] });
    }
    return row;
  });
}

const round3 = (value: number) => Number(value.toFixed(3));

/** The shares over every point, or over `items` only (their nearest among every point). */
function scoreMap(set: LabelledSet, graph: Neighbour[][], positions: Float32Array, items?: readonly number[]) {
  const count = items?.length ?? set.files.length;
  const onMap = mapNeighbours(positions, set.files.length, MEASURED_NEIGHBOURS, items);
  let kept = 0, sameOnMap = 0, sameInEmbedding = 0;
  for (const i of items ?? set.files.keys()) {
    const nearest = new Set(graph[i].slice(0, MEASURED_NEIGHBOURS).map((n) => n.index));
    for (const j of onMap.subarray(i * MEASURED_NEIGHBOURS, (i + 1) * MEASURED_NEIGHBOURS)) {
      if (nearest.has(j)) kept++;
      if (set.classes[j] === set.classes[i]) sameOnMap++;
    }
    for (const j of nearest) if (set.classes[j] === set.classes[i]) sameInEmbedding++;
  }
  const shares = { neighbourhood_preservation: round3(kept / count / MEASURED_NEIGHBOURS), same_class_share: round3(sameOnMap / count / MEASURED_NEIGHBOURS), same_class_share_embedding: round3(sameInEmbedding / count / MEASURED_NEIGHBOURS) };
  if (!set.families || items) return shares;
  const spreadOf = (members: number[]) => {
    const [cx, cy] = members.reduce(([x, y], i) => [x + positions[i * 2] / members.length, y + positions[i * 2 + 1] / members.length], [0, 0]);
    return members.reduce((sum, i) => sum + Math.hypot(positions[i * 2] - cx, positions[i * 2 + 1] - cy), 0) / members.length;
  };
  const families = new Map<string, number[]>();
  set.classes.forEach((family, i) => families.set(family, [...(families.get(family) ?? []), i]));
  const familySpread = [...families.values()].reduce((sum, members) => sum + spreadOf(members), 0) / families.size;
  return { ...shares, family_spread_over_map_spread: round3(familySpread / spreadOf(set.classes.map((_, i) => i))) };
}

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const sets = [fashionSet(fashionCount), ...(photoCount > 0 ? [await photoSet(photoCount)] : [])];
  const encoder = await loadImageEncoderInThread(config.models.dir, config.models.imageModel, config.models.inferenceThreads);
  const results = [];
  const added = [];
  try {
    for (const set of sets) {
      say(`${set.name}: embedding ${set.files.length} images…`);
      const vectors: Float32Array[] = [];
      for (let i = 0; i < set.files.length; i += 16) vectors.push(...(await encoder.encodeAndClassify(set.files.slice(i, i + 16))).map((encoded) => unitVector(encoded.vector)));
      const graph = knnGraph(vectors);
      const embedded = vectors.map((_, i) => i);
      for (const sampleSize of [undefined, ...(options.sample ? [Number(options.sample)] : [])]) {
        const cpu = process.cpuUsage();
        const started = process.hrtime.bigint();
        const { positions } = await layoutMap({ count: vectors.length, embedded, neighboursOf: (i) => graph[i], vectorsOf: async (items) => items.map((i) => vectors[i]), sampleSize });
        const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
        const used = process.cpuUsage(cpu);
        const result = { set: set.name, points: vectors.length, sample: sampleSize ?? 'default', layout_wall_seconds: round3(wallSeconds), layout_cpu_seconds: round3((used.user + used.system) / 1e6), ...scoreMap(set, graph, positions) };
        say(`  ${JSON.stringify(result)}`);
        results.push(result);
      }
      if (options.added) {
        const result = await addedItems(set, vectors, graph, Number(options.added));
        say(`  ${JSON.stringify(result)}`);
        added.push(result);
      }
    }
  } finally {
    await encoder.close();
  }
  const commit = execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  const report = { date: new Date().toISOString(), machine: benchMachine(), commit, measured_neighbours: MEASURED_NEIGHBOURS, results, ...(options.added && { added }) };
  const rows = results.map((r) => `| ${r.set} | ${r.sample} | ${r.neighbourhood_preservation} | ${r.same_class_share} | ${r.same_class_share_embedding} | ${'family_spread_over_map_spread' in r ? r.family_spread_over_map_spread : '–'} | ${r.layout_wall_seconds} / ${r.layout_cpu_seconds} |`);
  writeReport('map-quality', 'map-quality', report, [
    `# bench:map-quality (${report.date.slice(0, 10)}, commit ${commit})`,
    '',
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores, Node ${report.machine.node}. Shares of each point's ${MEASURED_NEIGHBOURS} nearest map points.`,
    '',
    '| set | UMAP sample | neighbourhood preservation | same class (map) | same class (embedding) | family spread / map spread | layout s (wall / CPU) |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...(options.added
      ? [
          `Items added after the layout (every ${Math.round(1 / Number(options.added))}th), as add_media places them: shares over the added items only.`,
          '',
          '| set | added | placed from neighbours | then refined (others fixed) | whole map laid out again | refinement s (wall / CPU) |',
          '|---|---|---|---|---|---|',
          ...added.map((r) => `| ${r.set} | ${r.added} | ${r.placed.neighbourhood_preservation} / ${r.placed.same_class_share} | ${r.refined.neighbourhood_preservation} / ${r.refined.same_class_share} | ${r.relaid.neighbourhood_preservation} / ${r.relaid.same_class_share} | ${r.refine_wall_seconds} / ${r.refine_cpu_seconds} |`),
          '',
          'Each cell: neighbourhood preservation / same-class share.',
          '',
        ]
      : []),
  ].join('\n'));
}

/**
 * add_media's map, simulated: the set laid out without every (1/share)-th item, those then placed from their neighbours
 * (placeItems, as services/graphReclustering.ts does) and refined with every other point fixed (refineAddedItems); the
 * added items' shares after each step, beside theirs when the whole set is laid out again.
 */
async function addedItems(set: LabelledSet, vectors: Float32Array[], graph: Neighbour[][], share: number) {
  const count = vectors.length;
  const every = Math.round(1 / share);
  const all = vectors.map((_, i) => i);
  const added = all.filter((i) => i % every === every - 1);
  const base = all.filter((i) => i % every !== every - 1);
  const neighboursOf = (i: number) => graph[i];
  const vectorsOf = async (items: readonly number[]) => items.map((i) => vectors[i]);
  const { positions, placed } = await layoutMap({ count, embedded: base, neighboursOf, vectorsOf });
  const sample = placedSample(all, placed);
  await placeItems({ positions, placed, items: added, neighboursOf, vectorsOf, sample, sampleVectors: async () => (await vectorsOf(sample)).map(unitVector) });
  const placedScores = scoreMap(set, graph, positions, added);
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await refineAddedItems({ positions, count, added, surroundings: surroundingsOf(added, neighboursOf), neighboursOf });
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  const refined = scoreMap(set, graph, positions, added);
  const relaid = scoreMap(set, graph, (await layoutMap({ count, embedded: all, neighboursOf, vectorsOf })).positions, added);
  return { set: set.name, added: added.length, placed: placedScores, refined, relaid, refine_wall_seconds: round3(wallSeconds), refine_cpu_seconds: round3((used.user + used.system) / 1e6) };
}

/** In a process of its own (`--layout-points N`): lays out N synthetic items and prints one JSON line of what it took. */
async function layOutSynthetic(count: number): Promise<void> {
  const input = syntheticMapInput(count);
  const rssBeforeMiB = process.memoryUsage().rss / 2 ** 20;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await layoutMap({ ...input, sampleSize: options.sample ? Number(options.sample) : undefined });
  const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({
    points: count,
    sample: options.sample ? Number(options.sample) : 'default',
    layout_wall_seconds: round3(wallSeconds),
    layout_cpu_seconds: round3((used.user + used.system) / 1e6),
    rss_before_layout_mib: Math.round(rssBeforeMiB),
    peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
  })}\n`);
}

/** The layout's time and peak RSS at each of `sizes`, each in a child process so its peak RSS is its own. */
async function scaleRun(sizes: number[]): Promise<void> {
  const results = sizes.map((count) => {
    say(`laying out ${count} synthetic items…`);
    const args = ['tsx', __filename, '--layout-points', String(count), ...(options.sample ? ['--sample', options.sample] : [])];
    const output = execFileSync('npx', args, { encoding: 'utf8', maxBuffer: 1 << 20 }).trim().split('\n');
    const result = JSON.parse(output[output.length - 1]) as Record<string, number | string>;
    say(`  ${JSON.stringify(result)}`);
    return result;
  });
  const commit = execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  const report = { date: new Date().toISOString(), machine: benchMachine(), load_average_1m: round3(os.loadavg()[0]), commit, dim: MODEL_DIM, results };
  writeReport('map-quality', 'map-layout-time', report, [
    `# bench:map-quality --scale (${report.date.slice(0, 10)}, commit ${commit})`,
    '',
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memory_gib} GiB, Node ${report.machine.node}; load average ${report.load_average_1m} at the end (shared machine: CPU seconds beside wall seconds).`,
    `Synthetic items of ${MODEL_DIM} dimensions (scripts/bench/syntheticMapInput.ts) laid out by layoutMap as the MAP_LAYOUT task does; peak RSS is the whole process's (its synthetic kNN graph included).`,
    '',
    '| points | UMAP sample | layout s (wall / CPU) | RSS before layout MiB | peak RSS MiB |',
    '|---|---|---|---|---|',
    ...results.map((r) => `| ${r.points} | ${r.sample} | ${r.layout_wall_seconds} / ${r.layout_cpu_seconds} | ${r.rss_before_layout_mib} | ${r.peak_rss_mib} |`),
    '',
  ].join('\n'));
}

if (options['layout-points']) runBench(() => layOutSynthetic(Number(options['layout-points'])));
else if (options.scale) runBench(() => scaleRun(options.scale!.split(',').map(Number)));
else runBench(main);
