/**
 * `npm run bench:quantization [-- SYNTHETIC_COUNT [QDRANT_SYNTHETIC_COUNT]]`: quantized vectors against exact float32
 * (issue 26, item 2), in one process so every variant sees the same machine load.
 *
 * Real photos: the evaluation photos (bench/eval/photos.json, scripts/fetch-eval-photos.sh; the test photos among them), each
 * with four copies (half size, JPEG quality 35, 90 % centre crop, 30 % brighter), encoded by the service's image model.
 * Each variant's kNN graph (GRAPH_K neighbours, as the analysis builds it) is compared with exact float32 search:
 * duplicate pairs at the service's threshold, recall@10, and Explore's clusters at the five thresholds (adjusted Rand
 * index, share of identical clusters). Variants: the embedded store's usearch HNSW in F32, F16 (the default) and I8;
 * Qdrant (when its binary is found, as the tests find it) float32, int8 with re-scoring (the default) and int8 without.
 * Qdrant collections are made to build their HNSW and quantized segments however small (the service's small
 * collections are searched by plain scan, which is float32 with or without quantization).
 *
 * Synthetic (SYNTHETIC_COUNT, default 100,000, seeded vectors as bench:explore writes them): per usearch kind the
 * index's bytes (and per million vectors), its build seconds, single-query search latency and recall@10 on 500
 * queries; per Qdrant variant (QDRANT_SYNTHETIC_COUNT, default 20,000: points go over HTTP as JSON) the same latency
 * and recall. Results: bench/results/quantization/quantization-<date>.json and .md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { exactSearch, MetricKind, ScalarKind, type BatchMatches, type Index } from 'usearch';
import { GRAPH_K } from '../../lib/clustering/knnGraph';
import { loadConfig } from '../../lib/config';
import { loadImageEncoder } from '../../lib/ml/imageEncoder';
import { newIndex } from '../../lib/vectors/embeddedVectorStore';
import { vectorMatrix } from '../../lib/vectors/vectorMatrix';
import { agreementWithExact, knnGraphOfHits, recallAtK, type Agreement } from '../../lib/vectors/neighbourAgreement';
import { createQdrantVectorStore, QDRANT_OVERSAMPLING, type QdrantQuantization } from '../../lib/vectors/qdrantVectorStore';
import type { VectorHit, VectorStore } from '../../lib/vectors/vectorStore';
import { evalPhotos } from '../../test/support/evalPhotos';
import { findQdrantBinary, indexWhateverTheSize, qdrantCall, startQdrantServer } from '../../test/support/qdrant';
import { benchDir, benchMachine, percentile, say, writeReport, runBench } from './common';
import { syntheticImageVectors } from './syntheticDataset';

const syntheticCount = Number(process.argv[2] ?? 100_000);
const qdrantSyntheticCount = Number(process.argv[3] ?? 20_000);
const QUERIES = 500;
const ENCODE_BATCH = 16;
const USEARCH_KINDS = [ScalarKind.F32, ScalarKind.F16, ScalarKind.I8];

/** The copies each photo gets: the kinds of change the duplicate detection is there to find. */
const COPIES: Record<string, (image: sharp.Sharp, width: number, height: number) => sharp.Sharp> = {
  half: (image, width) => image.resize(Math.round(width / 2)),
  jpeg35: (image) => image.jpeg({ quality: 35 }),
  crop90: (image, width, height) => image.extract({ left: Math.round(width * 0.05), top: Math.round(height * 0.05), width: Math.round(width * 0.9), height: Math.round(height * 0.9) }),
  brighter: (image) => image.modulate({ brightness: 1.3 }),
};

interface Vectors {
  names: string[];
  vectors: Float32Array[];
}

/** Every photo and its copies, as the service's image model encodes them. */
async function realPhotoVectors(): Promise<Vectors> {
  const manifest = JSON.parse(fs.readFileSync(path.join(benchDir, 'eval', 'photos.json'), 'utf8')) as Array<{ file: string }>;
  const sources = evalPhotos(...manifest.map((photo) => photo.file));
  const images: Array<{ name: string; data: Buffer }> = [];
  for (const source of sources) {
    const original = await sharp(source).rotate().jpeg({ quality: 90 }).toBuffer();
    const { width = 0, height = 0 } = await sharp(original).metadata();
    images.push({ name: path.basename(source), data: original });
    for (const [copy, make] of Object.entries(COPIES)) images.push({ name: `${path.basename(source)}:${copy}`, data: await make(sharp(original), width, height).jpeg({ quality: 90 }).toBuffer() });
  }
  const config = loadConfig(process.env);
  const encoder = await loadImageEncoder(config.models.dir, config.models.imageModel, Math.max(1, os.cpus().length));
  const vectors: Float32Array[] = [];
  for (let i = 0; i < images.length; i += ENCODE_BATCH) {
    vectors.push(...(await encoder.encodeAndClassify(images.slice(i, i + ENCODE_BATCH).map((image) => image.data))).map((encoded) => encoded.vector));
  }
  return { names: images.map((image) => image.name), vectors };
}

const keysOf = (count: number) => BigUint64Array.from({ length: count }, (_, i) => BigInt(i));

/** Batch matches as hits, keys named by `names`. */
function hitsOfBatch(batch: BatchMatches, queries: number, names: readonly string[]): VectorHit[][] {
  return Array.from({ length: queries }, (_, q) =>
    Array.from({ length: Number(batch.counts[q]) }, (_, h) => ({ id: names[Number(batch.keys[q * batch.k + h])], distance: batch.distances[q * batch.k + h] })),
  );
}

function exactHits(data: Float32Array, queries: Float32Array[], dim: number, k: number, names: readonly string[]): VectorHit[][] {
  return hitsOfBatch(exactSearch(data, queries, dim, k, MetricKind.Cos) as BatchMatches, queries.length, names);
}

function buildIndex(kind: ScalarKind, data: Float32Array, count: number, dim: number): { index: Index; seconds: number } {
  const index = newIndex(dim, kind);
  const started = performance.now();
  index.add(keysOf(count), data, 0);
  return { index, seconds: (performance.now() - started) / 1000 };
}

/** The index's serialised size: usearch saves what it holds (vectors in its kind, plus the graph). */
function indexBytes(index: Index): number {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'quantization-')), 'index.usearch');
  index.save(file);
  const bytes = fs.statSync(file).size;
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return bytes;
}

/** Milliseconds per single-vector search, ascending. */
async function latencies(queries: Float32Array[], search: (query: Float32Array) => unknown): Promise<number[]> {
  const times: number[] = [];
  for (const query of queries) {
    const started = performance.now();
    await search(query);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

const latencyFigures = (times: number[]) => ({ p50_ms: +percentile(times, 0.5).toFixed(3), p95_ms: +percentile(times, 0.95).toFixed(3) });

/** Qdrant variants: a server of the run's own, collections that index (and quantize) whatever their size. */
async function withQdrant<T>(body: (variant: (quantization: QdrantQuantization, rescore: boolean) => Promise<QdrantVariant>) => Promise<T>): Promise<T | undefined> {
  const binary = findQdrantBinary();
  if (!binary) {
    say('no Qdrant binary (QDRANT_BIN or ../shared/tools/qdrant): Qdrant variants left out');
    return undefined;
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quantization-qdrant-'));
  const server = await startQdrantServer({ binary, dataDir });
  try {
    let made = 0;
    return await body(async (quantization, rescore) => qdrantVariant(server.url, `bench_${quantization}_${rescore}_${made++}`, quantization, rescore));
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

interface QdrantVariant {
  load(vectors: Float32Array[], names: readonly string[]): Promise<void>;
  search(queries: Float32Array[], k: number): Promise<VectorHit[][]>;
}

async function qdrantVariant(url: string, collection: string, quantization: QdrantQuantization, rescore: boolean): Promise<QdrantVariant> {
  const store: VectorStore = createQdrantVectorStore({ url, quantization, timeoutMs: 300_000 });
  let ids: string[] = [];
  let nameOf = new Map<string, string>();
  return {
    async load(vectors, names) {
      ids = names.map((_, i) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`);
      nameOf = new Map(ids.map((id, i) => [id, names[i]]));
      await store.ensureCollection(collection, vectors[0].length);
      await store.upsert(collection, vectors.map((vector, i) => ({ id: ids[i], vector })));
      // Searched once every point sits in an indexed (and quantized) segment.
      await indexWhateverTheSize(url, collection);
    },
    async search(queries, k) {
      if (rescore) return (await store.searchMany(collection, queries, k)).map((hits) => hits.map((hit) => ({ ...hit, id: nameOf.get(hit.id)! })));
      const searches = queries.map((vector) => ({ vector: Array.from(vector), limit: k, params: { quantization: { rescore: false } } }));
      const results = await qdrantCall<Array<Array<{ id: string; score: number }>>>(url, 'POST', `/collections/${collection}/points/search/batch`, { searches });
      return results.map((hits) => hits.map((hit) => ({ id: nameOf.get(hit.id)!, distance: 1 - hit.score })));
    },
  };
}

const QDRANT_VARIANTS: Array<{ name: string; quantization: QdrantQuantization; rescore: boolean }> = [
  { name: 'qdrant float32', quantization: 'none', rescore: true },
  { name: `qdrant int8, re-scored (x${QDRANT_OVERSAMPLING} candidates)`, quantization: 'int8', rescore: true },
  { name: 'qdrant int8, not re-scored', quantization: 'int8', rescore: false },
];

const usearchName = (kind: ScalarKind) => `usearch HNSW ${kind}`;

async function realPhotoAgreement(): Promise<{ images: number; dim: number; variants: Array<{ name: string } & Agreement> }> {
  const { names, vectors } = await realPhotoVectors();
  const dim = vectors[0].length;
  const data = vectorMatrix(vectors, dim);
  const graphOf = (hits: VectorHit[][]) => knnGraphOfHits(hits, names, GRAPH_K);
  const exact = graphOf(exactHits(data, vectors, dim, GRAPH_K + 1, names));
  say(`real photos: ${names.length} images of ${dim} dimensions`);
  const variants: Array<{ name: string } & Agreement> = [];
  const record = (name: string, hits: VectorHit[][]) => {
    variants.push({ name, ...agreementWithExact(graphOf(hits), exact) });
    const last = variants[variants.length - 1];
    say(`  ${name}: duplicate pairs ${last.duplicate_pairs_found}/${last.exact_duplicate_pairs} (+${last.extra_duplicate_pairs}), recall@10 ${last.recall_at_10.toFixed(4)}, ARI ${last.clusters.map((c) => c.adjusted_rand.toFixed(3)).join(' ')}`);
  };
  for (const kind of USEARCH_KINDS) {
    const { index } = buildIndex(kind, data, vectors.length, dim);
    record(usearchName(kind), hitsOfBatch(index.search(data, GRAPH_K + 1, 0) as BatchMatches, vectors.length, names));
  }
  await withQdrant(async (variant) => {
    for (const { name, quantization, rescore } of QDRANT_VARIANTS) {
      const qdrant = await variant(quantization, rescore);
      await qdrant.load(vectors, names);
      record(name, await qdrant.search(vectors, GRAPH_K + 1));
    }
  });
  return { images: names.length, dim, variants };
}

async function syntheticFigures(count: number, qdrantCount: number) {
  const dim = 1280;
  const generated = syntheticImageVectors(dim);
  const vectors = Array.from({ length: count }, () => generated.next().value);
  const names = vectors.map((_, i) => String(i));
  const data = vectorMatrix(vectors, dim);
  const step = Math.floor(count / QUERIES);
  const queries = Array.from({ length: QUERIES }, (_, q) => vectors[q * step]);
  const exactOf = (points: number) => knnGraphOfHits(exactHits(data.subarray(0, points * dim), queries, dim, GRAPH_K + 1, names), names, GRAPH_K);
  say(`synthetic: ${count} vectors of ${dim} dimensions, ${QUERIES} queries`);
  const exact = exactOf(count);
  const usearch = [];
  for (const kind of USEARCH_KINDS) {
    const { index, seconds } = buildIndex(kind, data, count, dim);
    const bytes = indexBytes(index);
    const found = knnGraphOfHits(hitsOfBatch(index.search(vectorMatrix(queries, dim), GRAPH_K + 1, 0) as BatchMatches, QUERIES, names), names, GRAPH_K);
    const times = await latencies(queries, (query) => index.search(query, GRAPH_K + 1, 1));
    usearch.push({ name: usearchName(kind), index_bytes: bytes, bytes_per_vector: Math.round(bytes / count), gib_per_million: +((bytes / count) * 1e6 / 2 ** 30).toFixed(2), build_seconds: +seconds.toFixed(1), recall_at_10: recallAtK(found, exact, 10), ...latencyFigures(times) });
    say(`  ${JSON.stringify(usearch[usearch.length - 1])}`);
  }
  const qdrantExact = exactOf(qdrantCount);
  const qdrant = await withQdrant(async (variant) => {
    const figures = [];
    for (const { name, quantization, rescore } of QDRANT_VARIANTS) {
      const store = await variant(quantization, rescore);
      const started = performance.now();
      await store.load(vectors.slice(0, qdrantCount), names.slice(0, qdrantCount));
      const loadSeconds = (performance.now() - started) / 1000;
      const found = knnGraphOfHits(await store.search(queries, GRAPH_K + 1), names, GRAPH_K);
      const times = await latencies(queries, (query) => store.search([query], GRAPH_K + 1));
      figures.push({ name, points: qdrantCount, load_and_index_seconds: +loadSeconds.toFixed(1), recall_at_10: recallAtK(found, qdrantExact, 10), ...latencyFigures(times) });
      say(`  ${JSON.stringify(figures[figures.length - 1])}`);
    }
    return figures;
  });
  return { count, dim, queries: QUERIES, usearch, qdrant: qdrant ?? null, qdrant_points: qdrantCount };
}

function markdown(report: { date: string; machine: ReturnType<typeof benchMachine>; real_photos: Awaited<ReturnType<typeof realPhotoAgreement>>; synthetic: Awaited<ReturnType<typeof syntheticFigures>> }): string {
  const { real_photos: real, synthetic } = report;
  const lines = [
    `# Quantized vectors against exact float32 (${report.date.slice(0, 10)})`,
    '',
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memory_gib} GiB.`,
    '',
    `## Real photos: ${real.images} images (photos and four copies each), ${real.dim} dimensions`,
    '',
    '| variant | duplicate pairs found | extra pairs | recall@10 | adjusted Rand, thresholds 0-4 | identical clusters, thresholds 0-4 |',
    '| --- | --- | --- | --- | --- | --- |',
    ...real.variants.map(
      (v) =>
        `| ${v.name} | ${v.duplicate_pairs_found}/${v.exact_duplicate_pairs} (${(100 * v.duplicate_pair_recall).toFixed(1)} %) | ${v.extra_duplicate_pairs} | ${v.recall_at_10.toFixed(4)} | ${v.clusters.map((c) => c.adjusted_rand.toFixed(3)).join(', ')} | ${v.clusters.map((c) => `${(100 * c.identical_clusters).toFixed(0)} %`).join(', ')} |`,
    ),
    '',
    `## Synthetic: ${synthetic.count} vectors, ${synthetic.queries} queries`,
    '',
    '| variant | GiB per million | build s | recall@10 | p50 ms | p95 ms |',
    '| --- | --- | --- | --- | --- | --- |',
    ...synthetic.usearch.map((v) => `| ${v.name} | ${v.gib_per_million} | ${v.build_seconds} | ${v.recall_at_10.toFixed(4)} | ${v.p50_ms} | ${v.p95_ms} |`),
    ...(synthetic.qdrant ?? []).map((v) => `| ${v.name} (${v.points} points) | | ${v.load_and_index_seconds} (load and index) | ${v.recall_at_10.toFixed(4)} | ${v.p50_ms} | ${v.p95_ms} |`),
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const real = await realPhotoAgreement();
  const synthetic = await syntheticFigures(syntheticCount, Math.min(qdrantSyntheticCount, syntheticCount));
  const report = { date: new Date().toISOString(), machine: benchMachine(), graph_k: GRAPH_K, real_photos: real, synthetic };
  writeReport('quantization', 'quantization', report, markdown(report));
}

runBench(main);
