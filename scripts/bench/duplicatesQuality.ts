/**
 * `npm run bench:duplicates-quality [-- LOOKALIKES]`: how right the duplicate groups are (issue 46), through the real
 * API, worker, Temporal and Postgres, with fastdup on the same files in the same run.
 *
 * Data: the real evaluation photos (scripts/fetch-eval-photos.sh), each with planted copies: the same bytes under
 * another name, a 60 % resize, a re-encode at quality 40/50/60, a 5 % crop (corner or centre), +20 % brightness and a
 * caption overlay (an SVG text composited by sharp); every copy is written with the originals' encoder (mozjpeg, q85
 * unless re-encoded). Among them, distinct look-alikes: LOOKALIKES Fashion-MNIST items (default 500) upscaled to 224 px
 * (items whose 28 px sources are pixel-identical count as one picture), and the same thing shot twice from the
 * pinned archives fetch-eval-photos.sh caches (second shots of four eval photos, a stereo pair, a wall from two
 * viewpoints, one chessboard in three shots: see SHOT_TWICE). File names are hashes, so no name tells an original from a copy, and
 * uploads are shuffled with a fixed seed. Half the photos come with their copies at creation; the other half's copies
 * arrive later in one add_media.
 *
 * Measured from GET /dataset/{id}/duplicates at the defaults (similarity 0.90), after creation and after add_media:
 * pair precision and recall per tier (a tier alone, then exact + near-identical, the default), where a pair is two
 * images in one group and the truth is the planted families; how each kind of copy is tiered; which distinct items
 * are grouped; and whether the suggested keeper is the original (or its byte-identical copy). fastdup 2.54 (its
 * defaults: k = 2 neighbours, components at 0.96) on the same files is scored the same way.
 * Results: bench/results/duplicates-quality/duplicates-quality-<date>.json.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createLogger } from '../../lib/logger';
import { projectRoot } from '../../lib/projectRoot';
import { installSdkLogger } from '../../workers/main';
import { benchDir, benchMachine, createDatasetOverHttp, filesForm, runBench, say, timed, waitForNewestTask, withScratchStack, writeReport } from './common';

const lookalikeCount = Number(process.argv[2] ?? 500);
const root = projectRoot();
const evalPhotosDir = path.join(root, '.tools', 'eval-photos');
const labelledDir = path.join(root, '.tools', 'labelled-images');
const TARGETS = { precision: 0.95, recall: 0.95, keeper_original_share: 0.95 };
/** fastdup.run's own defaults in 2.54: similarity.csv keeps each image's 2 nearest neighbours at >= 0.90; its components cut at 0.96. */
const FASTDUP = { k: 2, runThreshold: 0.9, componentThreshold: 0.96 };
const SEED = 46;

type Tier = 'exact' | 'near_identical' | 'similar';
const TIERS: Tier[] = ['exact', 'near_identical', 'similar'];
type CopyKind = 'exact' | 'resize60' | 'reencode' | 'crop95' | 'brighter20' | 'caption';
type Category = 'photo' | 'copy' | 'fashion_mnist' | 'shot_twice';

/** How each planted copy is made from its original (the `index` of the photo varies quality and crop anchor). */
const COPIES: Record<Exclude<CopyKind, 'exact'>, (original: string, width: number, height: number, index: number) => sharp.Sharp> = {
  resize60: (original, width) => sharp(original).resize(Math.round(width * 0.6)),
  reencode: (original) => sharp(original),
  crop95: (original, width, height, index) => {
    const [w, h] = [Math.round(width * 0.95), Math.round(height * 0.95)];
    const anchor = [0, 0.5, 1][index % 3];
    return sharp(original).extract({ left: Math.round((width - w) * anchor), top: Math.round((height - h) * anchor), width: w, height: h });
  },
  brighter20: (original) => sharp(original).modulate({ brightness: 1.2 }),
  caption: (original, width, height) => sharp(original).composite([{ input: captionSvg(width, height) }]),
};
const reencodeQuality = (index: number) => [40, 50, 60][index % 3];

/** A holiday-album caption: a translucent band along the bottom with white text. */
function captionSvg(width: number, height: number): Buffer {
  const band = Math.round(height * 0.12);
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<rect x="0" y="${height - band}" width="${width}" height="${band}" fill="black" fill-opacity="0.45"/>` +
      `<text x="${Math.round(width * 0.04)}" y="${height - Math.round(band * 0.3)}" font-family="sans-serif" font-size="${Math.round(band * 0.6)}" fill="white">Summer trip, day 3</text></svg>`,
  );
}

/**
 * Distinct pictures of one thing shot more than once: [archive in the eval-photo cache, member, name]. The right view of
 * the stereo motorcycle, the second basketball frame, the second Leuven street and the second aerial view are the other
 * shots of eval photos (skimage-motorcycle, opencv-basketball, opencv-old-street, opencv-aerial-city); the aloe stereo
 * pair, the graffiti wall from two viewpoints and the chessboard in three shots come in whole.
 */
const SHOT_TWICE: Array<[string, string, string]> = [
  ['scikit_image-0.26.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl', 'skimage/data/motorcycle_right.png', 'motorcycle-right'],
  ...['basketball2.png', 'leuvenB.jpg', 'aero3.jpg', 'aloeL.jpg', 'aloeR.jpg', 'graf1.png', 'graf3.png', 'left01.jpg', 'left02.jpg', 'right01.jpg'].map(
    (file): [string, string, string] => ['opencv-doc_4.6.0+dfsg-12_all.deb', `./usr/share/doc/opencv-doc/examples/data/${file}`, file.replace(/\.\w+$/, '')],
  ),
];
/** Photos of the eval set from the archives above: fetching them again fills the cache when it was cleaned. */
const SHOT_TWICE_FETCH = 'skimage-astronaut.jpg,opencv-apple.jpg';

interface BenchImage {
  /** What it is, for people: "skimage-coffee", "skimage-coffee~caption", "fmnist-00012", "shot-twice/aloeL". */
  label: string;
  /** The uploaded file (its base name is what the API lists). */
  file: string;
  category: Category;
  /** Images of one family are copies of one picture: the truth. */
  family: string;
  kind?: CopyKind;
  sha256: string;
  /** When it is uploaded. */
  batch: 'creation' | 'add_media';
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const hashedName = (label: string, ext: string) => `img-${createHash('sha1').update(label).digest('hex').slice(0, 12)}${ext}`;

/** The same recipe as fetch-eval-photos.sh: at most 640 px, upright, flattened on white, sRGB, mozjpeg q85. */
const asEvalPhoto = (image: sharp.Sharp) =>
  image.rotate().resize(640, 640, { fit: 'inside', withoutEnlargement: true }).flatten({ background: '#ffffff' }).toColourspace('srgb');

async function plantedPhotos(dir: string): Promise<BenchImage[]> {
  execFileSync('bash', [path.join(root, 'scripts', 'fetch-eval-photos.sh')], { stdio: 'inherit' });
  const photos = fs.readdirSync(evalPhotosDir).filter((name) => name.endsWith('.jpg')).sort();
  const images: BenchImage[] = [];
  for (const [index, name] of photos.entries()) {
    const stem = name.replace(/\.jpg$/, '');
    const batch = index % 2 === 0 ? 'creation' : 'add_media';
    const original = path.join(dir, hashedName(stem, '.jpg'));
    fs.copyFileSync(path.join(evalPhotosDir, name), original);
    images.push({ label: stem, file: original, category: 'photo', family: stem, sha256: sha256(original), batch: 'creation' });
    const exact = path.join(dir, hashedName(`${stem}~exact`, '.jpg'));
    fs.copyFileSync(original, exact);
    images.push({ label: `${stem}~exact`, file: exact, category: 'copy', family: stem, kind: 'exact', sha256: sha256(exact), batch });
    const { width, height } = await sharp(original).metadata();
    for (const [kind, make] of Object.entries(COPIES) as Array<[Exclude<CopyKind, 'exact'>, (typeof COPIES)[keyof typeof COPIES]]>) {
      const file = path.join(dir, hashedName(`${stem}~${kind}`, '.jpg'));
      await make(original, width!, height!, index).jpeg({ quality: kind === 'reencode' ? reencodeQuality(index) : 85, mozjpeg: true }).toFile(file);
      images.push({ label: `${stem}~${kind}`, file, category: 'copy', family: stem, kind, sha256: sha256(file), batch });
    }
  }
  return images;
}

/** Fashion-MNIST items upscaled to 224 px; items whose 28 px sources have the same pixels are one family (they are duplicates). */
async function fashionMnist(dir: string): Promise<{ images: BenchImage[]; identicalSources: number }> {
  execFileSync('bash', [path.join(root, 'scripts', 'fetch-labelled-images.sh'), String(lookalikeCount)], { stdio: 'inherit' });
  const rows = fs.readFileSync(path.join(labelledDir, 'labels.csv'), 'utf8').trim().split('\n').slice(1, lookalikeCount + 1).map((line) => line.split(','));
  const familyOfPixels = new Map<string, string>();
  const images: BenchImage[] = [];
  let identicalSources = 0;
  for (const [fileName] of rows) {
    const source = path.join(labelledDir, fileName);
    const pixels = createHash('sha256').update(await sharp(source).greyscale().raw().toBuffer()).digest('hex');
    const label = fileName.replace(/\.png$/, '');
    if (familyOfPixels.has(pixels)) identicalSources++;
    else familyOfPixels.set(pixels, label);
    const file = path.join(dir, `${label}.png`);
    await sharp(source).resize(224, 224, { kernel: 'lanczos3' }).png().toFile(file);
    images.push({ label, file, category: 'fashion_mnist', family: `fmnist:${familyOfPixels.get(pixels)}`, sha256: sha256(file), batch: 'creation' });
  }
  return { images, identicalSources };
}

async function shotTwice(dir: string): Promise<BenchImage[]> {
  const cache = path.join(evalPhotosDir, '.cache');
  if (SHOT_TWICE.some(([archive]) => !fs.existsSync(path.join(cache, archive)))) {
    execFileSync('bash', [path.join(root, 'scripts', 'fetch-eval-photos.sh'), '--force', '--only', SHOT_TWICE_FETCH], { stdio: 'inherit' });
  }
  const images: BenchImage[] = [];
  for (const [archive, member, name] of SHOT_TWICE) {
    const from = path.join(cache, archive);
    const command = archive.endsWith('.deb') ? `dpkg-deb --fsys-tarfile "$0" | tar -xO -f - "$1"` : `unzip -p "$0" "$1"`;
    const bytes = execFileSync('bash', ['-c', command, from, member], { maxBuffer: 64 * 2 ** 20 });
    const file = path.join(dir, `shot-${name}.jpg`);
    await asEvalPhoto(sharp(bytes)).jpeg({ quality: 85, mozjpeg: true }).toFile(file);
    images.push({ label: `shot-twice/${name}`, file, category: 'shot_twice', family: `shot:${name}`, sha256: sha256(file), batch: 'creation' });
  }
  return images;
}

/** A fixed-seed shuffle, so uploads do not come originals first. */
function shuffled<T>(items: T[]): T[] {
  let seed = SEED;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

interface ApiPair {
  media_id: string;
  duplicate_of: string;
  similarity: number;
  tier: Tier;
  reason: string;
}
interface ApiGroup {
  pairs: ApiPair[];
  members: Array<{ media_id: string; file_name: string }>;
  member_count: number;
  suggested_keeper: { media_id: string; reasons: string[]; deciding_fact: string };
}

/** Every group (open or decided) at the default similarity, joined by `tiers` (the API's default when undefined). */
async function readGroups(apiUrl: string, datasetId: string, tiers?: Tier[]): Promise<ApiGroup[]> {
  const groups: ApiGroup[] = [];
  for (let page = 0; ; page++) {
    const query = new URLSearchParams({ state: 'all', page_number: String(page), page_size: '200', members_limit: '1000', ...(tiers ? { tiers: tiers.join(',') } : {}) });
    const response = await fetch(`${apiUrl}/dataset/${datasetId}/duplicates?${query}`);
    if (!response.ok) throw new Error(`GET duplicates ${query} answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { groups: ApiGroup[]; total: number };
    for (const group of body.groups) if (group.member_count !== group.members.length) throw new Error(`a group of ${group.member_count} listed ${group.members.length}`);
    groups.push(...body.groups);
    if (groups.length >= body.total || body.groups.length === 0) return groups;
  }
}

/** The images a state holds, looked up by the API's file names and media ids. */
class Universe {
  readonly byFile = new Map<string, BenchImage>();
  readonly byMedia = new Map<string, BenchImage>();
  constructor(readonly images: BenchImage[]) {
    for (const image of images) this.byFile.set(path.basename(image.file), image);
  }
  learn(groups: ApiGroup[]): void {
    for (const group of groups) for (const member of group.members) this.byMedia.set(member.media_id, this.image(member.file_name));
  }
  image(fileName: string): BenchImage {
    const image = this.byFile.get(fileName);
    if (!image) throw new Error(`the API listed ${fileName}, which this state did not upload`);
    return image;
  }
  /** The planted pairs: two images of one family; tier exact when their bytes are the same. */
  truePairs(): Map<string, Tier> {
    const families = new Map<string, BenchImage[]>();
    for (const image of this.images) families.set(image.family, [...(families.get(image.family) ?? []), image]);
    const pairs = new Map<string, Tier>();
    for (const members of families.values()) {
      for (let a = 0; a < members.length; a++) for (let b = a + 1; b < members.length; b++) pairs.set(pairKey(members[a], members[b]), members[a].sha256 === members[b].sha256 ? 'exact' : 'near_identical');
    }
    return pairs;
  }
}

const pairKey = (a: BenchImage, b: BenchImage) => (a.label < b.label ? `${a.label}|${b.label}` : `${b.label}|${a.label}`);
const round3 = (value: number) => Math.round(value * 1000) / 1000;
const ratio = (part: number, whole: number) => (whole === 0 ? null : round3(part / whole));
const f1 = (precision: number | null, recall: number | null) =>
  precision === null || recall === null || precision + recall === 0 ? null : round3((2 * precision * recall) / (precision + recall));

/** Every two images that share a group. */
function groupedPairs(groups: BenchImage[][]): Set<string> {
  const pairs = new Set<string>();
  for (const members of groups) for (let a = 0; a < members.length; a++) for (let b = a + 1; b < members.length; b++) pairs.add(pairKey(members[a], members[b]));
  return pairs;
}

/** Precision of the grouped pairs against every planted pair, recall against the planted pairs of `recallTiers`. */
function pairQuality(predicted: Set<string>, truth: Map<string, Tier>, recallTiers: Tier[]) {
  const truePositives = [...predicted].filter((key) => truth.has(key)).length;
  const relevant = [...truth].filter(([, tier]) => recallTiers.includes(tier)).map(([key]) => key);
  const found = relevant.filter((key) => predicted.has(key)).length;
  const precision = ratio(truePositives, predicted.size);
  const recall = ratio(found, relevant.length);
  return { grouped_pairs: predicted.size, true_pairs: truePositives, false_pairs: predicted.size - truePositives, planted_pairs: relevant.length, found: found, precision, recall, f1: f1(precision, recall) };
}

/**
 * One tier's pairs: the pairs the API lists with that tier (each an image and the copy the analysis found for it) and
 * the share that join copies of one picture; the planted pairs of that tier that the default groups hold; and the groups
 * the tier forms alone (tiers=<tier>). Nothing planted is "similar": its precision is the share of copies it holds.
 */
function tierQuality(universe: Universe, tier: Tier, allTierGroups: ApiGroup[], atDefaults: Set<string>, alone: Set<string>, truth: Map<string, Tier>) {
  const listed = allTierGroups.flatMap((group) => group.pairs).filter((pair) => pair.tier === tier);
  const joiningCopies = listed.filter((pair) => universe.byMedia.get(pair.media_id)!.family === universe.byMedia.get(pair.duplicate_of)!.family).length;
  const planted = [...truth].filter(([, truthTier]) => truthTier === tier).map(([key]) => key);
  const found = planted.filter((key) => atDefaults.has(key)).length;
  const precision = ratio(joiningCopies, listed.length);
  const recall = tier === 'similar' ? null : ratio(found, planted.length);
  const groupedAlone = pairQuality(alone, truth, [tier]);
  return {
    listed_pairs: listed.length,
    listed_pairs_joining_copies: joiningCopies,
    precision,
    planted_pairs: planted.length,
    found_in_default_groups: found,
    recall,
    f1: f1(precision, recall),
    groups_of_this_tier_alone: tier === 'similar' ? { ...groupedAlone, recall: null, f1: null } : groupedAlone,
  };
}

/** How each kind of copy came out: grouped with its original at the defaults, and the tier of its best pair inside its family. */
function perKind(universe: Universe, defaultGroups: ApiGroup[], allTierGroups: ApiGroup[]) {
  const groupOf = new Map<string, number>();
  defaultGroups.forEach((group, index) => group.members.forEach((member) => groupOf.set(universe.byMedia.get(member.media_id)!.label, index)));
  const best = new Map<string, ApiPair>();
  for (const pair of allTierGroups.flatMap((group) => group.pairs)) {
    const [a, b] = [universe.byMedia.get(pair.media_id)!, universe.byMedia.get(pair.duplicate_of)!];
    if (a.family !== b.family) continue;
    for (const image of [a, b]) {
      const held = best.get(image.label);
      if (!held || TIERS.indexOf(pair.tier) < TIERS.indexOf(held.tier)) best.set(image.label, pair);
    }
  }
  const groupsOfFamily = new Map<string, Set<number>>();
  for (const image of universe.images.filter((candidate) => candidate.kind)) {
    for (const label of [image.label, image.family]) {
      const group = groupOf.get(label);
      if (group !== undefined) groupsOfFamily.set(image.family, (groupsOfFamily.get(image.family) ?? new Set()).add(group));
    }
  }
  const kinds: Record<string, { copies: number; grouped_with_original: number; recall: number | null; best_tier: Record<Tier | 'none', number> }> = {};
  const missed: Array<{ copy: string; best_tier: Tier | 'none'; similarity?: number; reason?: string }> = [];
  for (const copy of universe.images.filter((image) => image.kind)) {
    const entry = (kinds[copy.kind!] ??= { copies: 0, grouped_with_original: 0, recall: null, best_tier: { exact: 0, near_identical: 0, similar: 0, none: 0 } });
    entry.copies++;
    const pair = best.get(copy.label);
    entry.best_tier[pair?.tier ?? 'none']++;
    const grouped = groupOf.has(copy.label) && groupOf.get(copy.label) === groupOf.get(copy.family);
    if (grouped) entry.grouped_with_original++;
    else missed.push({ copy: copy.label, best_tier: pair?.tier ?? 'none', similarity: pair && round3(pair.similarity), reason: pair?.reason });
  }
  for (const entry of Object.values(kinds)) entry.recall = ratio(entry.grouped_with_original, entry.copies);
  const split = [...groupsOfFamily.values()].filter((groups) => groups.size > 1).length;
  return { kinds, missed, families_in_more_than_one_group: split };
}

/** Pairs inside the groups that join different pictures, with the pair's own tier, similarity and reason. */
function groupedDistinct(universe: Universe, groups: ApiGroup[]) {
  const edges = groups.flatMap((group) => group.pairs).map((pair) => ({ pair, a: universe.byMedia.get(pair.media_id)!, b: universe.byMedia.get(pair.duplicate_of)! }));
  const wrong = edges.filter(({ a, b }) => a.family !== b.family);
  const byCategories: Record<string, number> = {};
  for (const { a, b } of wrong) {
    const key = [a.category, b.category].sort().join(' × ');
    byCategories[key] = (byCategories[key] ?? 0) + 1;
  }
  return {
    joining_pairs: edges.length,
    joining_distinct_pictures: wrong.length,
    by_categories: byCategories,
    pairs: wrong.map(({ pair, a, b }) => ({ a: a.label, b: b.label, tier: pair.tier, similarity: round3(pair.similarity), reason: pair.reason })),
  };
}

/** Whether each group of planted copies suggests its original (or the original's byte-identical copy) as the keeper. */
function keeperQuality(universe: Universe, groups: ApiGroup[], batch: BenchImage['batch']) {
  const originalBytes = new Map(universe.images.filter((image) => image.category === 'photo').map((image) => [image.family, image.sha256]));
  let judged = 0;
  let original = 0;
  let withoutOriginal = 0;
  const wrong: Array<{ family: string; keeper: string; original_in_group: boolean; deciding_fact: string; reasons: string[] }> = [];
  for (const group of groups) {
    const members = group.members.map((member) => universe.byMedia.get(member.media_id)!);
    const copies = members.filter((member) => member.kind && member.batch === batch);
    if (copies.length === 0) continue;
    judged++;
    const keeper = universe.byMedia.get(group.suggested_keeper.media_id)!;
    const originalInGroup = members.some((member) => member.category === 'photo' && copies.some((copy) => copy.family === member.family));
    if (!originalInGroup) withoutOriginal++;
    if (originalBytes.get(keeper.family) === keeper.sha256 && copies.some((copy) => copy.family === keeper.family)) original++;
    else wrong.push({ family: copies[0].family, keeper: keeper.label, original_in_group: originalInGroup, deciding_fact: group.suggested_keeper.deciding_fact, reasons: group.suggested_keeper.reasons });
  }
  const factsThatChoseACopy: Record<string, number> = {};
  for (const miss of wrong.filter((entry) => entry.original_in_group)) factsThatChoseACopy[miss.deciding_fact] = (factsThatChoseACopy[miss.deciding_fact] ?? 0) + 1;
  return {
    groups: judged,
    keeper_is_original: original,
    share: ratio(original, judged),
    groups_without_their_original: withoutOriginal,
    share_of_groups_holding_their_original: ratio(original, judged - withoutOriginal),
    facts_that_chose_a_copy_over_the_original: factsThatChoseACopy,
    wrong,
  };
}

/** Everything measured on one state of the dataset. */
async function measure(apiUrl: string, datasetId: string, universe: Universe) {
  const byTier = Object.fromEntries(await Promise.all(TIERS.map(async (tier) => [tier, await readGroups(apiUrl, datasetId, [tier])] as const))) as Record<Tier, ApiGroup[]>;
  const defaults = await readGroups(apiUrl, datasetId);
  const allTiers = await readGroups(apiUrl, datasetId, TIERS);
  for (const groups of [...Object.values(byTier), defaults, allTiers]) universe.learn(groups);
  const truth = universe.truePairs();
  const members = (groups: ApiGroup[]) => groups.map((group) => group.members.map((member) => universe.byMedia.get(member.media_id)!));
  const atDefaults = groupedPairs(members(defaults));
  const perTier = Object.fromEntries(TIERS.map((tier) => [tier, tierQuality(universe, tier, allTiers, atDefaults, groupedPairs(members(byTier[tier])), truth)]));
  const kinds = perKind(universe, defaults, allTiers);
  return {
    images: universe.images.length,
    groups_at_defaults: defaults.length,
    per_tier: perTier,
    exact_plus_near_identical: pairQuality(atDefaults, truth, ['exact', 'near_identical']),
    all_tiers: pairQuality(groupedPairs(members(allTiers)), truth, ['exact', 'near_identical']),
    per_copy_kind: kinds.kinds,
    planted_families_in_more_than_one_group: kinds.families_in_more_than_one_group,
    missed_copies: kinds.missed,
    distinct_pictures_grouped_at_defaults: groupedDistinct(universe, defaults),
    distinct_pictures_paired_as_similar: groupedDistinct(universe, byTier.similar).joining_distinct_pictures,
    keeper: {
      copies_at_creation: keeperQuality(universe, defaults, 'creation'),
      ...(universe.images.some((image) => image.batch === 'add_media') ? { copies_added_with_add_media: keeperQuality(universe, defaults, 'add_media') } : {}),
    },
  };
}

function fastdupPython(): string | undefined {
  const venvPython = path.join(benchDir, '.venv', 'bin', 'python');
  const python = process.env.FASTDUP_PYTHON ?? (fs.existsSync(venvPython) ? venvPython : 'python3');
  const env = { ...process.env, SENTRY_OPT_OUT: '1', FASTDUP_PRODUCTION: '1' };
  return spawnSync(python, ['-c', 'import fastdup'], { stdio: 'ignore', env }).status === 0 ? python : undefined;
}

/** fastdup's pairs at its defaults on every file, scored like ours: its components at `threshold` as groups. */
function runFastdup(python: string, dir: string, universe: Universe) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fastdup-quality-'));
  try {
    const output = execFileSync(python, [path.join(root, 'scripts', 'bench', 'fastdup_pairs.py'), dir, work, String(FASTDUP.runThreshold), String(FASTDUP.k)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 256 * 2 ** 20,
    });
    const result = JSON.parse(output) as { images: number; seconds: number; pairs: Array<[string, string, number]> };
    const truth = universe.truePairs();
    const at = (threshold: number) => {
      const edges = result.pairs.filter(([, , similarity]) => similarity >= threshold).map(([a, b, similarity]) => ({ a: universe.image(a), b: universe.image(b), similarity }));
      const groups = components(edges);
      const quality = pairQuality(groupedPairs(groups), truth, ['exact', 'near_identical']);
      const groupOf = new Map(groups.flatMap((members, index) => members.map((member) => [member.label, index] as const)));
      const kinds: Record<string, { copies: number; grouped_with_original: number; recall: number | null }> = {};
      for (const copy of universe.images.filter((image) => image.kind)) {
        const entry = (kinds[copy.kind!] ??= { copies: 0, grouped_with_original: 0, recall: null });
        entry.copies++;
        if (groupOf.has(copy.label) && groupOf.get(copy.label) === groupOf.get(copy.family)) entry.grouped_with_original++;
      }
      for (const entry of Object.values(kinds)) entry.recall = ratio(entry.grouped_with_original, entry.copies);
      const wrong = edges.filter(({ a, b }) => a.family !== b.family);
      const byCategories: Record<string, number> = {};
      for (const { a, b } of wrong) {
        const key = [a.category, b.category].sort().join(' × ');
        byCategories[key] = (byCategories[key] ?? 0) + 1;
      }
      return { threshold, groups: groups.length, ...quality, per_copy_kind: kinds, distinct_pictures_paired: wrong.length, distinct_by_categories: byCategories };
    };
    return { images: result.images, seconds: result.seconds, neighbours_k: FASTDUP.k, at_component_default: at(FASTDUP.componentThreshold), at_run_default: at(FASTDUP.runThreshold) };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Connected components of the edges (images in no edge are left out, as singletons are no group). */
function components(edges: Array<{ a: BenchImage; b: BenchImage }>): BenchImage[][] {
  const parent = new Map<string, string>();
  const images = new Map<string, BenchImage>();
  const find = (label: string): string => {
    const up = parent.get(label)!;
    if (up === label) return label;
    const top = find(up);
    parent.set(label, top);
    return top;
  };
  for (const { a, b } of edges) {
    for (const image of [a, b]) {
      if (parent.has(image.label)) continue;
      parent.set(image.label, image.label);
      images.set(image.label, image);
    }
    parent.set(find(a.label), find(b.label));
  }
  const groups = new Map<string, BenchImage[]>();
  for (const label of parent.keys()) groups.set(find(label), [...(groups.get(find(label)) ?? []), images.get(label)!]);
  return [...groups.values()];
}

function summary(stage: string, measured: Awaited<ReturnType<typeof measure>>): void {
  const q = measured.exact_plus_near_identical;
  say(`${stage}: ${measured.images} images, ${measured.groups_at_defaults} groups at the defaults`);
  say(`  exact + near-identical: precision ${q.precision} recall ${q.recall} F1 ${q.f1} (${q.true_pairs}/${q.grouped_pairs} grouped pairs right, ${q.found}/${q.planted_pairs} planted found)`);
  for (const [tier, t] of Object.entries(measured.per_tier)) {
    say(`  ${tier.padEnd(15)} listed pairs ${t.listed_pairs}, precision ${t.precision}; recall in the default groups ${t.recall} (${t.found_in_default_groups}/${t.planted_pairs})`);
  }
  say(`  planted families split over more than one group: ${measured.planted_families_in_more_than_one_group}`);
  say(`  per copy kind, grouped with the original: ${Object.entries(measured.per_copy_kind).map(([kind, k]) => `${kind} ${k.grouped_with_original}/${k.copies}`).join(', ')}`);
  const distinct = measured.distinct_pictures_grouped_at_defaults;
  say(`  distinct pictures joined at the defaults: ${distinct.joining_distinct_pictures} pairs ${JSON.stringify(distinct.by_categories)}`);
  for (const [batch, keeper] of Object.entries(measured.keeper)) {
    say(
      `  keeper is the original (${batch}): ${keeper.keeper_is_original}/${keeper.groups} = ${keeper.share}; ${keeper.groups_without_their_original} groups lack their original; ` +
        `${keeper.share_of_groups_holding_their_original} of the others; a copy chosen by ${JSON.stringify(keeper.facts_that_chose_a_copy_over_the_original)}`,
    );
  }
}

async function main(): Promise<void> {
  installSdkLogger(createLogger('bench-sdk', 'error'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-duplicates-quality-'));
  try {
    const dir = path.join(scratch, 'files');
    fs.mkdirSync(dir);
    const photos = await plantedPhotos(dir);
    const fmnist = await fashionMnist(dir);
    const twice = await shotTwice(dir);
    const images = [...photos, ...fmnist.images, ...twice];
    const atCreation = shuffled(images.filter((image) => image.batch === 'creation'));
    const added = shuffled(images.filter((image) => image.batch === 'add_media'));
    say(`bench:duplicates-quality: ${atCreation.length} images at creation, ${added.length} copies with add_media, on ${os.cpus()[0].model}, ${os.cpus().length} cores`);

    const python = fastdupPython();
    const fastdup = python ? runFastdup(python, dir, new Universe(images)) : undefined;
    if (!fastdup) say('fastdup is not installed: python3 -m venv bench/.venv && bench/.venv/bin/pip install fastdup==2.54 (or set FASTDUP_PYTHON)');

    const { created, afterAddMedia, seconds } = await withScratchStack('duplicates-quality', async (apiUrl) => {
      const creation = await createDatasetOverHttp(apiUrl, 'duplicates-quality', atCreation.map((image) => image.file));
      const createdState = await measure(apiUrl, creation.datasetId, new Universe(atCreation));
      summary('after creation', createdState);
      const addition = await timed(async () => {
        const response = await fetch(`${apiUrl}/dataset/${creation.datasetId}/add_media`, { method: 'POST', body: await filesForm(added.map((image) => image.file)) });
        if (response.status !== 202) throw new Error(`add_media refused: ${response.status} ${await response.text()}`);
        await waitForNewestTask(apiUrl, creation.datasetId);
      });
      const addedState = await measure(apiUrl, creation.datasetId, new Universe(images));
      summary('after add_media', addedState);
      return { created: createdState, afterAddMedia: addedState, seconds: { creation: creation.seconds, add_media: addition.seconds } };
    });

    const ours = afterAddMedia.exact_plus_near_identical;
    const peer = fastdup?.at_component_default;
    if (fastdup && peer) {
      say(`fastdup (k ${FASTDUP.k}, components at ${FASTDUP.componentThreshold}) on the same ${fastdup.images} files: precision ${peer.precision} recall ${peer.recall} F1 ${peer.f1}`);
      say(`  per copy kind: ${Object.entries(peer.per_copy_kind).map(([kind, k]) => `${kind} ${k.grouped_with_original}/${k.copies}`).join(', ')}; distinct pairs ${JSON.stringify(peer.distinct_by_categories)}`);
      say(`ours ÷ fastdup F1: ${ours.f1 !== null && peer.f1 ? round3(ours.f1 / peer.f1) : 'n/a'}`);
    }
    const keepers = [afterAddMedia.keeper.copies_at_creation, afterAddMedia.keeper.copies_added_with_add_media];
    writeReport('duplicates-quality', 'duplicates-quality', {
      date: new Date().toISOString(),
      machine: benchMachine(),
      method:
        'Real eval photos with planted copies (same bytes, 60 % resize, re-encode q40/50/60, 5 % crop, +20 % brightness, caption overlay; mozjpeg q85 otherwise), half at creation and half with one add_media, ' +
        'among Fashion-MNIST items upscaled to 224 px and pictures of one thing shot twice; hashed file names, shuffled uploads. A pair is two images in one group of GET /dataset/{id}/duplicates ' +
        '(similarity 0.90; tiers as named, the default exact,near_identical); the truth is the planted families, a pair of the same bytes being exact, any other planted pair near-identical. ' +
        'Precision counts every grouped pair; per-tier recall counts the planted pairs of that tier. The keeper is right when it is the original or its byte-identical copy. ' +
        `fastdup 2.54 at its defaults (k ${FASTDUP.k}, similarity.csv at ${FASTDUP.runThreshold}, components at ${FASTDUP.componentThreshold}) on the same files, scored by its components the same way.`,
      data: {
        photos: photos.filter((image) => image.category === 'photo').length,
        copies_at_creation: photos.filter((image) => image.kind && image.batch === 'creation').length,
        copies_with_add_media: added.length,
        fashion_mnist: fmnist.images.length,
        fashion_mnist_with_pixel_identical_sources: fmnist.identicalSources,
        shot_twice: twice.map((image) => image.label),
        images_at_creation: atCreation.length,
        images_after_add_media: images.length,
      },
      targets: TARGETS,
      verdict: {
        precision_met: (ours.precision ?? 0) >= TARGETS.precision,
        recall_met: (ours.recall ?? 0) >= TARGETS.recall,
        f1_at_least_fastdups: peer ? (ours.f1 ?? 0) >= (peer.f1 ?? 0) : null,
        keeper_met: keepers.every((keeper) => (keeper?.share ?? 0) >= TARGETS.keeper_original_share),
      },
      after_creation: created,
      after_add_media: afterAddMedia,
      fastdup: fastdup ?? 'not installed',
      ours_vs_fastdup: peer ? { ours_f1: ours.f1, fastdup_f1: peer.f1, ratio: ours.f1 !== null && peer.f1 ? round3(ours.f1 / peer.f1) : null } : null,
      seconds_noisy: { ...seconds, fastdup: fastdup?.seconds ?? null },
    } as { date: string });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runBench(main);
