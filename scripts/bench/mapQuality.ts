/**
 * `npm run bench:map-quality [-- N] [--photos M] [--sample S]`: how well the map keeps neighbours. Embeds N Fashion-MNIST
 * photos (scripts/fetch-labelled-images.sh, 10 classes) and M bench photos (prepareImages: variants of ~110 photos,
 * each photo's variants one family of near-copies) with the image model, builds their kNN graph as the analysis does
 * (GRAPH_K nearest by cosine, exact), lays the map out with layoutMap (the analysis's code) and reports, per set:
 * - neighbourhood preservation: the share of each point's 10 nearest map points among its 10 nearest by embedding;
 * - same-class share: the share of each point's 10 nearest map points in its own class (family for the photos), beside
 *   the same share of its 10 nearest by embedding (what a perfect map would keep);
 * - family spread (photos): the mean distance of a family's points from their centre over that of all points from theirs;
 * - the layout's wall and CPU seconds. `--sample S` lays each set out again from a UMAP sample of S points, the rest
 *   placed from their neighbours (the path of sets over MAP_SAMPLE_SIZE). Results go to bench/results/map-quality/map-quality-<date>.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { exactSearch, MetricKind, type BatchMatches } from 'usearch';
import { GRAPH_K } from '../../lib/clustering/knnGraph';
import { loadConfig } from '../../lib/config';
import { loadImageEncoderInThread } from '../../lib/ml/encoderThread';
import { layoutMap } from '../../lib/map/layoutMap';
import type { Neighbour } from '../../lib/map/placeFromNeighbours';
import { unitVector } from '../../lib/map/embedSample';
import { projectRoot } from '../../lib/projectRoot';
import { vectorMatrix } from '../../lib/vectors/vectorMatrix';
import { benchMachine, prepareImages, runBench, say, writeReport } from './common';

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: { photos: { type: 'string', default: '1000' }, sample: { type: 'string' } },
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

/** Each point's `k` nearest other points on the map (exact). */
function mapNeighbours(positions: Float32Array, count: number, k: number): number[][] {
  return Array.from({ length: count }, (_, i) => {
    const order: Array<[number, number]> = [];
    for (let j = 0; j < count; j++) if (j !== i) order.push([(positions[i * 2] - positions[j * 2]) ** 2 + (positions[i * 2 + 1] - positions[j * 2 + 1]) ** 2, j]);
    return order.sort((a, b) => a[0] - b[0]).slice(0, k).map(([, j]) => j);
  });
}

const round3 = (value: number) => Number(value.toFixed(3));

function scoreMap(set: LabelledSet, graph: Neighbour[][], positions: Float32Array) {
  const count = set.files.length;
  const onMap = mapNeighbours(positions, count, MEASURED_NEIGHBOURS);
  let kept = 0, sameOnMap = 0, sameInEmbedding = 0;
  for (let i = 0; i < count; i++) {
    const nearest = new Set(graph[i].slice(0, MEASURED_NEIGHBOURS).map((n) => n.index));
    for (const j of onMap[i]) {
      if (nearest.has(j)) kept++;
      if (set.classes[j] === set.classes[i]) sameOnMap++;
    }
    for (const j of nearest) if (set.classes[j] === set.classes[i]) sameInEmbedding++;
  }
  const shares = { neighbourhood_preservation: round3(kept / count / MEASURED_NEIGHBOURS), same_class_share: round3(sameOnMap / count / MEASURED_NEIGHBOURS), same_class_share_embedding: round3(sameInEmbedding / count / MEASURED_NEIGHBOURS) };
  if (!set.families) return shares;
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
    }
  } finally {
    await encoder.close();
  }
  const commit = execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  const report = { date: new Date().toISOString(), machine: benchMachine(), commit, measured_neighbours: MEASURED_NEIGHBOURS, results };
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
  ].join('\n'));
}

runBench(main);
