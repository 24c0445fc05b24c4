/**
 * `npm run bench:model-variants [-- ROUNDS]`: cheaper variants of the duplicate-path image model
 * (issue 15), measured in one process so they see the same machine load.
 *
 * Variants (built by scripts/bench/model_variants.py from the installed EfficientNet-Lite0 and the
 * CenterNet of npm @vladmandic/human): EfficientNet-Lite0 fp32 at 224 (the default), 192 and 160 px;
 * static int8 with mixed precision at 224 and 160 px (calibrated on real photos that are not in the
 * labeled set); the MobileNetV3 backbone of the COCO CenterNet, pooled, at 224 and 160 px.
 *
 * Quality: a labeled set of real photos (bench/data/photos, one per artwork) and their variants —
 * resize and recompress (duplicates), crops, flip, brightness (near-duplicates) — and the precision and
 * recall of the pairs found at the service's cosine thresholds (0.90: duplicates and clusters at
 * threshold 0; 0.80: clusters at threshold 1), for every variant and for fastdup's pairs on the same files.
 * Speed: model CPU and wall ms per image (batch 16) in one worker thread and in two at once, each with
 * one inference thread, and through the service's encodePixels on the main thread; interleaved round
 * by round, medians of ROUNDS (default 3).
 * Results: bench/results/model-variants/model-variants-<date>.json and .md.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { CLUSTER_SIMILARITY_CUTOFFS } from '../../lib/clustering/clusterByThresholds';
import { imagePixels, imageTensor, loadImageEncoder, readImageModelManifest, type ImageEncoder } from '../../lib/ml/imageEncoder';
import { projectRoot } from '../../lib/projectRoot';
import { NEIGHBOUR_SCORING } from '../../lib/quality/neighbourScores';
import { benchDir, benchMachine, percentile, say, writeReport, runBench } from './common';

const rounds = Number(process.argv[2] ?? 3);
const root = projectRoot();
const installedModels = process.env.MODELS_DIR ?? path.join(root, '.tools', 'models');
const dataDir = path.join(benchDir, 'data');
const labeledDir = path.join(dataDir, 'model-variants', 'images');
const variantModels = path.join(dataDir, 'model-variants', 'models');
const BATCH = 16;
const SPEED_IMAGES = 128;
const THRESHOLDS = { duplicate: NEIGHBOUR_SCORING.duplicateSimilarity, cluster1: CLUSTER_SIMILARITY_CUTOFFS[1] };
const FASTDUP_DEFAULT_THRESHOLD = 0.96;
/** The input sides model_variants.py calibrates at (int8 ranges at 224, the backbone's centre at each of its sizes). */
const CALIBRATION_SIZES = [224, 160];
/** Sources smaller than this on their long side are thumbnails (the 400 px wallpaper screenshots), not photos. */
const MIN_SOURCE_SIDE = 512;

/** Sources showing an artwork another source already shows (other sizes, colourways, languages, the stereo twin): left out so that every group is one picture. */
const SAME_ARTWORK = [
  'usr_share_backgrounds_mate_abstract_Elephants_3840x2160.jpg',
  'usr_share_backgrounds_mate_abstract_Elephants_5640x3172.jpg',
  'usr_share_backgrounds_mate_desktop_Ubuntu-Mate-Dark-no-logo.png',
  'usr_share_backgrounds_mate_desktop_Ubuntu-Mate-Radioactive-no-logo.png',
  'usr_share_backgrounds_mate_desktop_Ubuntu-Mate-Warm-no-logo.png',
  'usr_share_backgrounds_mate_desktop_MATE-Stripes-Light.png',
  'skimage_data_motorcycle_right.png',
  'usr_share_wallpapers_Patak_contents_screenshot.png',
  'usr_share_wallpapers_Flow_contents_screenshot.png',
  'usr_share_wallpapers_Flow_contents_images_dark_720x1440.jpg',
  'usr_share_wallpapers_Kay_contents_images_dark_5120x2880.png',
  'usr_share_doc_HTML_fr_palapeli_puzzletable1.png',
];

type PairKind = 'duplicate' | 'near-duplicate';
/** How each copy is made from the original (the original itself: at most 1024 px, JPEG q90, as the ingest bench's images). */
const EDITS: Record<string, { kind: PairKind; make: (image: sharp.Sharp, width: number, height: number) => sharp.Sharp; quality?: number }> = {
  resize: { kind: 'duplicate', make: (image, width) => image.resize(Math.round(width / 2)) },
  recompress: { kind: 'duplicate', make: (image) => image, quality: 35 },
  crop90: { kind: 'near-duplicate', make: (image, width, height) => centreCrop(image, width, height, 0.9) },
  crop80corner: {
    kind: 'near-duplicate',
    make: (image, width, height) => image.extract({ left: 0, top: 0, width: Math.round(width * 0.8), height: Math.round(height * 0.8) }),
  },
  flip: { kind: 'near-duplicate', make: (image) => image.flop() },
  brighter: { kind: 'near-duplicate', make: (image) => image.modulate({ brightness: 1.3 }) },
  darker: { kind: 'near-duplicate', make: (image) => image.modulate({ brightness: 0.7 }) },
};

function centreCrop(image: sharp.Sharp, width: number, height: number, keep: number): sharp.Sharp {
  const w = Math.round(width * keep);
  const h = Math.round(height * keep);
  return image.extract({ left: Math.floor((width - w) / 2), top: Math.floor((height - h) / 2), width: w, height: h });
}

interface LabeledImage {
  file: string;
  group: number;
  edit: string;
}

/** Whether a source is a photo for the labeled set: opaque (translucent wallpapers flatten to near-white), and not a thumbnail. */
async function isPhoto(file: string): Promise<boolean> {
  const { width, height } = await sharp(file).metadata();
  return Math.max(width!, height!) >= MIN_SOURCE_SIDE && (await sharp(file).stats()).isOpaque;
}

/** The labeled set: per source photo its original and one copy per edit, made again into bench/data at every run (sharp is deterministic). */
async function labeledSet(): Promise<{ images: LabeledImage[]; sources: string[] }> {
  const photosDir = path.join(dataDir, 'photos');
  if (!fs.existsSync(photosDir)) execFileSync('bash', [path.join(root, 'scripts', 'bench', 'fetch-photos.sh'), photosDir], { stdio: 'inherit' });
  const sources: string[] = [];
  for (const name of fs.readdirSync(photosDir).sort()) {
    if (!SAME_ARTWORK.includes(name) && (await isPhoto(path.join(photosDir, name)))) sources.push(name);
  }
  fs.rmSync(labeledDir, { recursive: true, force: true });
  fs.mkdirSync(labeledDir, { recursive: true });
  const images: LabeledImage[] = [];
  for (const [group, source] of sources.entries()) {
    const stem = path.join(labeledDir, String(group).padStart(3, '0'));
    const original = `${stem}_original.jpg`;
    await sharp(path.join(photosDir, source)).rotate().resize(1024, 1024, { fit: 'inside', withoutEnlargement: true }).jpeg({ quality: 90 }).toFile(original);
    images.push({ file: original, group, edit: 'original' });
    const { width, height } = await sharp(original).metadata();
    for (const [edit, { make, quality }] of Object.entries(EDITS)) {
      const file = `${stem}_${edit}.jpg`;
      await make(sharp(original), width!, height!).jpeg({ quality: quality ?? 90 }).toFile(file);
      images.push({ file, group, edit });
    }
  }
  return { images, sources };
}

/** Model inputs of real photos that are not in the labeled set (the detector eval photos of other packages), and their mirror images. */
async function calibrationInputs(dir: string): Promise<number> {
  const evalDir = path.join(root, '.tools', 'eval-photos');
  if (!fs.existsSync(evalDir)) execFileSync('bash', [path.join(root, 'scripts', 'fetch-eval-photos.sh')], { stdio: 'inherit' });
  const inLabeledSet = /^(skimage|sklearn|matplotlib|mate|plasma)-/;
  const photos = fs.readdirSync(evalDir).filter((name) => name.endsWith('.jpg') && !inLabeledSet.test(name)).sort();
  fs.mkdirSync(dir, { recursive: true });
  for (const name of photos) {
    const mirrored = await sharp(path.join(evalDir, name)).flop().toBuffer();
    for (const size of CALIBRATION_SIZES) {
      const spec = { size, resize: 'fill' as const };
      fs.writeFileSync(path.join(dir, `${name}.${size}.rgb`), await imagePixels(path.join(evalDir, name), spec));
      fs.writeFileSync(path.join(dir, `${name}.flip.${size}.rgb`), await imagePixels(mirrored, spec));
    }
  }
  return photos.length;
}

/** The TFJS CenterNet of @vladmandic/human, as scripts/models/fetch_centernet.sh pins it. */
function centernetGraph(work: string): string {
  const pins = fs.readFileSync(path.join(root, 'scripts', 'models', 'fetch_centernet.sh'), 'utf8');
  const sha256 = /^tgz_sha256=(\w+)/m.exec(pins)![1];
  const version = /^version=(\S+)/m.exec(pins)![1];
  execFileSync('npm', ['pack', '--silent', `@vladmandic/human@${version}`], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
  const tgz = path.join(work, fs.readdirSync(work).find((name) => name.endsWith('.tgz'))!);
  execFileSync('sha256sum', ['-c', '--quiet', '-'], { input: `${sha256}  ${tgz}\n` });
  execFileSync('tar', ['-xzf', tgz, '-C', work, 'package/models/centernet.json', 'package/models/centernet.bin']);
  fs.rmSync(tgz);
  return path.join(work, 'package', 'models', 'centernet.json');
}

/** Builds the variants beside a copy of the installed model; returns the manifest names, the default first. */
function buildVariants(calibrationDir: string, work: string): { names: string[]; info: unknown } {
  fs.rmSync(variantModels, { recursive: true, force: true });
  fs.mkdirSync(variantModels, { recursive: true });
  const base = readImageModelManifest(installedModels, 'efficientnet-lite0');
  for (const file of ['efficientnet-lite0.json', base.classifier!.labels]) fs.copyFileSync(path.join(installedModels, file), path.join(variantModels, file));
  fs.symlinkSync(base.path, path.join(variantModels, base.file));
  execFileSync('bash', ['-c', 'source scripts/python-tool.sh && install_python_tool model-quantize "Model quantizer (onnxruntime, onnx, numpy)" onnxruntime==1.30.0 onnx==1.23.2 numpy==2.4.6'], {
    cwd: root,
    stdio: 'inherit',
  });
  const built = JSON.parse(
    execFileSync(path.join(root, '.tools', 'model-quantize', 'bin', 'python'), [
      path.join(root, 'scripts', 'bench', 'model_variants.py'),
      installedModels,
      variantModels,
      calibrationDir,
      centernetGraph(work),
    ], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
  ) as { manifests: string[]; variants: unknown };
  return { names: ['efficientnet-lite0', ...built.manifests], info: built.variants };
}

/** Embeddings and top-1 classes (-1 without a classifier) of `files`, and the model inputs of the first SPEED_IMAGES. */
async function embedAll(encoder: ImageEncoder, files: string[]): Promise<{ vectors: Float32Array[]; topClasses: number[]; pixels: Buffer[] }> {
  const pixels = await Promise.all(files.map((file) => imagePixels(file, encoder.input)));
  const encoded = [];
  for (let i = 0; i < pixels.length; i += BATCH) encoded.push(...(await encoder.encodePixels(pixels.slice(i, i + BATCH))));
  return { vectors: encoded.map((e) => e.vector), topClasses: encoded.map((e) => e.classes[0]?.index ?? -1), pixels: pixels.slice(0, SPEED_IMAGES) };
}

/** CPU and wall ms per image on one inference thread through the service's encodePixels (tensor building and read-out in JS included). */
async function singleThread(encoder: ImageEncoder, pixels: Buffer[]): Promise<{ cpu: number; wall: number }> {
  await encoder.encodePixels(pixels.slice(0, BATCH));
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < pixels.length; i += BATCH) await encoder.encodePixels(pixels.slice(i, i + BATCH));
  const used = process.cpuUsage(cpu);
  return { cpu: (used.user + used.system) / 1000 / pixels.length, wall: (performance.now() - started) / pixels.length };
}

/** Each worker thread owns a session with one inference thread; all start together once warmed up. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ort);
(async () => {
  const session = await ort.InferenceSession.create(workerData.model, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const tensors = workerData.batches.map((batch) => new ort.Tensor(workerData.type, batch.data, batch.dims));
  await session.run({ [workerData.input]: tensors[0] });
  parentPort.once('message', async () => {
    const started = performance.now();
    for (const tensor of tensors) await session.run({ [workerData.input]: tensor });
    parentPort.postMessage(performance.now() - started);
    await session.release();
  });
  parentPort.postMessage('ready');
})();
`;

/**
 * `threads` worker threads running the model at once: wall ms per image per thread, images/s in all,
 * and the process's CPU ms per image (steadier than wall time when other jobs share the cores).
 */
async function workerThreads(
  modelName: string,
  pixels: Buffer[],
  threads: number,
): Promise<{ msPerImagePerThread: number; imagesPerSecond: number; cpuMsPerImage: number }> {
  const manifest = readImageModelManifest(variantModels, modelName);
  const batches: Array<{ data: Float32Array | Uint8Array; dims: readonly number[] }> = [];
  for (let i = 0; i < pixels.length; i += BATCH) {
    const tensor = imageTensor(pixels.slice(i, i + BATCH), manifest);
    batches.push({ data: tensor.data as Float32Array | Uint8Array, dims: tensor.dims });
  }
  const workerData = { ort: path.join(root, 'node_modules', 'onnxruntime-node'), model: manifest.path, input: manifest.input, type: manifest.inputFormat === 'uint8-nhwc' ? 'uint8' : 'float32', batches };
  const workers = Array.from({ length: threads }, () => new Worker(WORKER_SOURCE, { eval: true, workerData }));
  try {
    await Promise.all(workers.map((worker) => new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject))));
    const cpu = process.cpuUsage();
    const started = performance.now();
    const walls = await Promise.all(
      workers.map((worker) => {
        const done = new Promise<number>((resolve, reject) => worker.once('message', resolve).once('error', reject));
        worker.postMessage('go');
        return done;
      }),
    );
    const all = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return {
      msPerImagePerThread: walls.reduce((a, b) => a + b, 0) / threads / pixels.length,
      imagesPerSecond: (threads * pixels.length * 1000) / all,
      cpuMsPerImage: (used.user + used.system) / 1000 / (threads * pixels.length),
    };
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

function cosine(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

interface Pair {
  a: number;
  b: number;
  similarity: number;
}

/** Whether a same-group pair is a duplicate (both untouched copies) or a near-duplicate (an edit on one side). */
function pairKind(images: LabeledImage[], pair: Pair): PairKind {
  const untouched = (edit: string) => edit === 'original' || EDITS[edit].kind === 'duplicate';
  return untouched(images[pair.a].edit) && untouched(images[pair.b].edit) ? 'duplicate' : 'near-duplicate';
}

const round3 = (value: number) => Math.round(value * 1000) / 1000;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Precision and recall of the pairs at `threshold`; recall per pair kind and per edit (the edit against its original). */
function pairQuality(images: LabeledImage[], found: Pair[], threshold: number) {
  const positives = { duplicate: 0, 'near-duplicate': 0 };
  const perEdit: Record<string, { found: number; of: number }> = {};
  for (let a = 0; a < images.length; a++) {
    for (let b = a + 1; b < images.length; b++) {
      if (images[a].group !== images[b].group) continue;
      positives[pairKind(images, { a, b, similarity: 0 })]++;
      if (images[a].edit === 'original') (perEdit[images[b].edit] ??= { found: 0, of: 0 }).of++;
    }
  }
  const hits = { duplicate: 0, 'near-duplicate': 0 };
  let falsePairs = 0;
  for (const pair of found) {
    if (pair.similarity < threshold) continue;
    if (images[pair.a].group !== images[pair.b].group) {
      falsePairs++;
      continue;
    }
    hits[pairKind(images, pair)]++;
    const [first, second] = [images[pair.a], images[pair.b]];
    if (first.edit === 'original') perEdit[second.edit].found++;
    else if (second.edit === 'original') perEdit[first.edit].found++;
  }
  const truePairs = hits.duplicate + hits['near-duplicate'];
  return {
    threshold,
    pairs_found: truePairs + falsePairs,
    false_pairs: falsePairs,
    precision: round3(truePairs / Math.max(1, truePairs + falsePairs)),
    recall: round3(truePairs / (positives.duplicate + positives['near-duplicate'])),
    recall_duplicates: round3(hits.duplicate / positives.duplicate),
    recall_near_duplicates: round3(hits['near-duplicate'] / positives['near-duplicate']),
    recall_vs_original: Object.fromEntries(Object.entries(perEdit).map(([edit, { found: n, of }]) => [edit, round3(n / of)])),
  };
}

/** Every pair at or above `floor` (all pairs: the labeled groups hold 8 images, inside the service's 10 neighbours). */
function similarPairs(vectors: Float32Array[], floor: number): Pair[] {
  const pairs: Pair[] = [];
  for (let a = 0; a < vectors.length; a++) {
    for (let b = a + 1; b < vectors.length; b++) {
      const similarity = cosine(vectors[a], vectors[b]);
      if (similarity >= floor) pairs.push({ a, b, similarity });
    }
  }
  return pairs;
}

/** The threshold with the best F1 over the pairs (does the variant need thresholds of its own?). */
function bestThreshold(images: LabeledImage[], pairs: Pair[]) {
  let best = { threshold: 0, f1: -1, precision: 0, recall: 0 };
  for (let t = 0.5; t <= 0.995; t += 0.01) {
    const quality = pairQuality(images, pairs, t);
    const f1 = (2 * quality.precision * quality.recall) / Math.max(1e-9, quality.precision + quality.recall);
    if (f1 > best.f1) best = { threshold: round3(t), f1: round3(f1), precision: quality.precision, recall: quality.recall };
  }
  return best;
}

/** How similar the originals of different photos are to each other: median, 99.9th percentile, largest. */
function unrelatedSimilarity(images: LabeledImage[], vectors: Float32Array[]) {
  const originals = [...images.keys()].filter((i) => images[i].edit === 'original');
  const values = originals.flatMap((a, n) => originals.slice(n + 1).map((b) => cosine(vectors[a], vectors[b])));
  values.sort((x, y) => x - y);
  return { originals_p50: round3(percentile(values, 0.5)), originals_p999: round3(percentile(values, 0.999)), originals_max: round3(values[values.length - 1]) };
}

function fastdupPairs(images: LabeledImage[], work: string) {
  const python = path.join(benchDir, '.venv', 'bin', 'python');
  if (!fs.existsSync(python)) return undefined;
  const output = execFileSync(python, [path.join(root, 'scripts', 'bench', 'fastdup_pairs.py'), labeledDir, path.join(work, 'fastdup'), String(THRESHOLDS.cluster1), '10'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    maxBuffer: 256 * 2 ** 20,
  });
  const result = JSON.parse(output) as { images: number; seconds: number; images_per_second: number; threads: number; pairs: Array<[string, string, number]> };
  const index = new Map(images.map((image, i) => [path.basename(image.file), i]));
  const pairs = result.pairs.map(([a, b, similarity]) => ({ a: index.get(a)!, b: index.get(b)!, similarity })).map((p) => (p.a < p.b ? p : { ...p, a: p.b, b: p.a }));
  return {
    images: result.images,
    threads: result.threads,
    ms_per_image_decode_included: round3(1000 / result.images_per_second),
    at_duplicate_threshold: pairQuality(images, pairs, THRESHOLDS.duplicate),
    at_cluster1_threshold: pairQuality(images, pairs, THRESHOLDS.cluster1),
    at_fastdup_default: pairQuality(images, pairs, FASTDUP_DEFAULT_THRESHOLD),
    best: bestThreshold(images, pairs),
  };
}

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'model-variants-'));
  try {
    const { images, sources } = await labeledSet();
    say(`labeled set: ${sources.length} photos x ${1 + Object.keys(EDITS).length} = ${images.length} images`);
    const calibrationPhotos = await calibrationInputs(path.join(work, 'calibration'));
    const { names, info } = buildVariants(path.join(work, 'calibration'), work);
    const encoders = new Map<string, ImageEncoder>();
    const vectors = new Map<string, Float32Array[]>();
    const topClasses = new Map<string, number[]>();
    const speedPixels = new Map<string, Buffer[]>();
    for (const name of names) {
      const encoder = await loadImageEncoder(variantModels, name, 1);
      const embedded = await embedAll(encoder, images.map((image) => image.file));
      encoders.set(name, encoder);
      vectors.set(name, embedded.vectors);
      topClasses.set(name, embedded.topClasses);
      speedPixels.set(name, embedded.pixels);
      say(`embedded with ${name}`);
    }
    const speed = Object.fromEntries(names.map((name) => [name, { service: [] as number[], one: [] as number[], oneWall: [] as number[], two: [] as number[], twoWall: [] as number[], twoRate: [] as number[] }]));
    for (let round = 0; round < rounds; round++) {
      for (const name of names) {
        const service = await singleThread(encoders.get(name)!, speedPixels.get(name)!);
        const one = await workerThreads(name, speedPixels.get(name)!, 1);
        const two = await workerThreads(name, speedPixels.get(name)!, 2);
        const samples = speed[name];
        samples.service.push(service.cpu);
        samples.one.push(one.cpuMsPerImage);
        samples.oneWall.push(one.msPerImagePerThread);
        samples.two.push(two.cpuMsPerImage);
        samples.twoWall.push(two.msPerImagePerThread);
        samples.twoRate.push(two.imagesPerSecond);
        say(
          `round ${round + 1} ${name}: encodePixels ${service.cpu.toFixed(1)} CPU ms; model 1 thread ${one.cpuMsPerImage.toFixed(1)} CPU ms / ${one.msPerImagePerThread.toFixed(1)} ms; ` +
            `2 worker threads ${two.cpuMsPerImage.toFixed(1)} CPU ms / ${two.msPerImagePerThread.toFixed(1)} ms per image per thread, ${two.imagesPerSecond.toFixed(0)} images/s`,
        );
      }
    }
    await Promise.all([...encoders.values()].map((encoder) => encoder.close()));

    const reference = vectors.get('efficientnet-lite0')!;
    const referenceClasses = topClasses.get('efficientnet-lite0')!;
    const variants = names.map((name) => {
      const own = vectors.get(name)!;
      const pairs = similarPairs(own, 0.5);
      const manifest = readImageModelManifest(variantModels, name);
      const sameSpace = manifest.dim === reference[0].length;
      const toFp32 = sameSpace ? own.map((vector, i) => cosine(vector, reference[i])).sort((a, b) => a - b) : undefined;
      return {
        name,
        id: manifest.id,
        size: manifest.size,
        dim: manifest.dim,
        file_mb: round3(fs.statSync(manifest.path).size / 2 ** 20),
        speed: {
          encode_pixels_cpu_ms_per_image: round3(median(speed[name].service)),
          one_thread_cpu_ms_per_image: round3(median(speed[name].one)),
          one_thread_wall_ms_per_image: round3(median(speed[name].oneWall)),
          two_worker_threads_cpu_ms_per_image: round3(median(speed[name].two)),
          two_worker_threads_ms_per_image_per_thread: round3(median(speed[name].twoWall)),
          two_worker_threads_images_per_second: round3(median(speed[name].twoRate)),
          samples: speed[name],
        },
        cosine_to_fp32: toFp32 && { median: round3(median(toFp32)), p5: round3(percentile(toFp32, 0.05)), min: round3(toFp32[0]) },
        same_top1_class_as_fp32: manifest.classifier ? round3(topClasses.get(name)!.filter((c, i) => c === referenceClasses[i]).length / own.length) : undefined,
        unrelated: unrelatedSimilarity(images, own),
        at_duplicate_threshold: pairQuality(images, pairs, THRESHOLDS.duplicate),
        at_cluster1_threshold: pairQuality(images, pairs, THRESHOLDS.cluster1),
        best: bestThreshold(images, pairs),
      };
    });
    const fastdup = fastdupPairs(images, work);
    const report = {
      date: new Date().toISOString(),
      machine: benchMachine(),
      load_average: os.loadavg(),
      rounds,
      labeled_set: { photos: sources.length, images: images.length, sources, edits: Object.fromEntries(Object.entries(EDITS).map(([edit, { kind }]) => [edit, kind])), left_out_as_same_artwork: SAME_ARTWORK },
      calibration: { photos: calibrationPhotos, inputs: calibrationPhotos * 2, source: '.tools/eval-photos minus the packages of the labeled set, each with its mirror image' },
      thresholds: THRESHOLDS,
      built: info,
      variants,
      fastdup,
    };
    writeReport('model-variants', 'model-variants', report, markdown(report));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

type Report = {
  date: string;
  rounds: number;
  load_average: number[];
  labeled_set: { photos: number; images: number };
  variants: Array<{
    name: string;
    size: number;
    dim: number;
    file_mb: number;
    speed: {
      encode_pixels_cpu_ms_per_image: number;
      one_thread_cpu_ms_per_image: number;
      one_thread_wall_ms_per_image: number;
      two_worker_threads_cpu_ms_per_image: number;
      two_worker_threads_ms_per_image_per_thread: number;
      two_worker_threads_images_per_second: number;
    };
    cosine_to_fp32?: { median: number; min: number };
    same_top1_class_as_fp32?: number;
    at_duplicate_threshold: ReturnType<typeof pairQuality>;
    at_cluster1_threshold: ReturnType<typeof pairQuality>;
    best: ReturnType<typeof bestThreshold>;
  }>;
  fastdup?: ReturnType<typeof fastdupPairs>;
};

function markdown(report: Report): string {
  const pr = (q: ReturnType<typeof pairQuality>) => `${q.precision.toFixed(3)} / ${q.recall_duplicates.toFixed(3)} / ${q.recall_near_duplicates.toFixed(3)}`;
  const lines = [
    `# Image model variants, ${report.date.slice(0, 16)} UTC`,
    '',
    `Labeled set: ${report.labeled_set.photos} real photos (opaque, long side ≥ ${MIN_SOURCE_SIDE} px, one per artwork) x 8 (original, resize, recompress, crop 90 %, corner crop 80 %, flip, +30 %, −30 % brightness) = ${report.labeled_set.images} images. ` +
      `Speed: model only, batch ${BATCH}, ${SPEED_IMAGES} images, medians of ${report.rounds} interleaved rounds; load average at the end ${report.load_average.map((v) => v.toFixed(1)).join(' ')}.`,
    '',
    '| variant | input | dim | MB | model, 1 thread: CPU ms/img (wall) | model, 2 worker threads: CPU ms/img, wall ms/img per thread, img/s | encodePixels CPU ms/img | cosine to fp32 median / min | same top-1 class as fp32 | at 0.90: precision / dup recall / near-dup recall | at 0.80: same | best F1 threshold (P / R) |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...report.variants.map((v) =>
      [
        v.name,
        v.size,
        v.dim,
        v.file_mb.toFixed(1),
        `${v.speed.one_thread_cpu_ms_per_image.toFixed(1)} (${v.speed.one_thread_wall_ms_per_image.toFixed(1)})`,
        `${v.speed.two_worker_threads_cpu_ms_per_image.toFixed(1)}, ${v.speed.two_worker_threads_ms_per_image_per_thread.toFixed(1)}, ${v.speed.two_worker_threads_images_per_second.toFixed(0)}`,
        v.speed.encode_pixels_cpu_ms_per_image.toFixed(1),
        v.cosine_to_fp32 ? `${v.cosine_to_fp32.median.toFixed(3)} / ${v.cosine_to_fp32.min.toFixed(3)}` : '—',
        v.same_top1_class_as_fp32 === undefined ? '—' : `${(v.same_top1_class_as_fp32 * 100).toFixed(0)} %`,
        pr(v.at_duplicate_threshold),
        pr(v.at_cluster1_threshold),
        `${v.best.threshold.toFixed(2)} (${v.best.precision.toFixed(3)} / ${v.best.recall.toFixed(3)})`,
      ].join(' | ').replace(/^/, '| ').concat(' |'),
    ),
  ];
  if (report.fastdup) {
    const f = report.fastdup;
    lines.push(
      `| fastdup 2.54 (${f.threads} thread, decode included) | 224 | 576 | — | (${f.ms_per_image_decode_included.toFixed(1)}) | — | — | — | — | ${pr(f.at_duplicate_threshold)} | ${pr(f.at_cluster1_threshold)} | ${f.best.threshold.toFixed(2)} (${f.best.precision.toFixed(3)} / ${f.best.recall.toFixed(3)}) |`,
      '',
      `fastdup at its default threshold ${FASTDUP_DEFAULT_THRESHOLD}: ${pr(f.at_fastdup_default)} (its 10 nearest neighbours per image).`,
    );
  }
  lines.push('', 'Recall per edit against its original, at 0.90:', '');
  const edits = Object.keys(EDITS);
  lines.push(`| variant | ${edits.join(' | ')} |`, `|---|${edits.map(() => '---').join('|')}|`);
  const row = (name: string, q: ReturnType<typeof pairQuality>) => `| ${name} | ${edits.map((edit) => q.recall_vs_original[edit]?.toFixed(3) ?? '—').join(' | ')} |`;
  for (const v of report.variants) lines.push(row(v.name, v.at_duplicate_threshold));
  if (report.fastdup) lines.push(row('fastdup', report.fastdup.at_duplicate_threshold));
  return `${lines.join('\n')}\n`;
}

runBench(main);
