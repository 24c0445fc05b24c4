/**
 * `npm run eval:search`: search quality on the evaluation photos (bench/eval/photos.json, fetched by
 * scripts/fetch-eval-photos.sh). A dataset of all of them is made and enriched with every model
 * list_models reports Active (the first Active one per type); then each photo's `query` is run as a
 * `caption=` search and as a VQL text `semantic` filter, on the enriched dataset and on its
 * un-enriched source (the baseline: nothing there has a caption). A hit @k is the photo (or one of its
 * `also` files) among the first k media of the ranking: the clusters' previews flattened in order,
 * ordered by their relevance (cosine distance, nearest first). Also records each photo's caption and
 * labels against its expected COCO objects and ImageNet classes (informational). Results go to
 * bench/results/eval-search/eval-search-<date>.json and .md.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { createLogger } from '../../lib/logger';
import { projectRoot } from '../../lib/projectRoot';
import { installSdkLogger } from '../../workers/main';
import { activeEnrichment, benchDir, benchMachine, createDatasetOverHttp, enrichOverHttp, say, withScratchStack, writeReport, runBench } from './common';

interface EvalPhoto {
  file: string;
  description: string;
  query: string;
  also?: string[];
  expect: { coco: string[]; imagenet?: string[] };
}

type Preview = { file_name: string; caption: string | null; relevance_score?: number };
type Cluster = { previews: Preview[]; labels: string[] | null };
type Mode = 'caption' | 'semantic';
type Ranked = { file: string; distance: number | null };

const photosDir = process.env.EVAL_PHOTOS_DIR ?? path.join(projectRoot(), '.tools', 'eval-photos');
const photos = JSON.parse(fs.readFileSync(path.join(benchDir, 'eval', 'photos.json'), 'utf8')) as EvalPhoto[];

async function explore(apiUrl: string, datasetId: string, params: Record<string, string>): Promise<Cluster[]> {
  const response = await fetch(`${apiUrl}/explore/${datasetId}?${new URLSearchParams({ entity_type: 'IMAGES', ...params })}`);
  if (response.status !== 200) throw new Error(`explore ${JSON.stringify(params)}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { clusters: Cluster[] }).clusters;
}

/** The media a search ranks: previews in the clusters' order, then by distance (a stable sort; none last). */
async function ranking(apiUrl: string, datasetId: string, mode: Mode, query: string): Promise<Ranked[]> {
  const params: Record<string, string> = mode === 'caption' ? { caption: query } : { vql: JSON.stringify([{ text: { op: 'semantic', value: query } }]) };
  const flat = (await explore(apiUrl, datasetId, params)).flatMap((cluster) => cluster.previews);
  return flat
    .map((preview) => ({ file: preview.file_name, distance: preview.relevance_score ?? null }))
    .sort((a, b) => (a.distance ?? Infinity) - (b.distance ?? Infinity));
}

/** Every media item's caption and labels (its cluster's at threshold 0, where only near-identical photos share one). */
async function describedMedia(apiUrl: string, datasetId: string): Promise<Map<string, { caption: string | null; labels: string[] }>> {
  const media = new Map<string, { caption: string | null; labels: string[] }>();
  for (let page = 0; ; page++) {
    const clusters = await explore(apiUrl, datasetId, { threshold: '0', page_number: String(page) });
    if (clusters.length === 0) return media;
    for (const cluster of clusters) for (const preview of cluster.previews) media.set(preview.file_name, { caption: preview.caption, labels: cluster.labels ?? [] });
  }
}

/** The COCO category names: from an installed detector manifest with 80 labels, else those photos.json expects. */
function cocoVocabulary(): { names: Set<string>; from: string } {
  const dir = loadConfig(process.env).models.dir;
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir).filter((file) => file.endsWith('.json')) : []) {
    try {
      const labels = (JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { labels?: unknown }).labels;
      if (Array.isArray(labels) && labels.length === 80) return { names: new Set(labels.map(String)), from: path.relative(projectRoot(), path.join(dir, name)) };
    } catch {
      // not a manifest
    }
  }
  return { names: new Set(photos.flatMap((photo) => photo.expect.coco)), from: 'the expect.coco names of photos.json' };
}

function evaluate(rankings: Map<string, Ranked[]>) {
  const perQuery = photos.map((photo) => {
    const wanted = new Set([photo.file, ...(photo.also ?? [])]);
    const ranked = rankings.get(photo.file)!;
    const position = ranked.findIndex((entry) => wanted.has(entry.file));
    return {
      file: photo.file,
      query: photo.query,
      rank: position < 0 ? null : position + 1,
      hit_at_1: position === 0,
      hit_at_3: position >= 0 && position < 3,
      results: ranked.length,
      top3: ranked.slice(0, 3),
    };
  });
  const recall = (k: 1 | 3) => perQuery.filter((entry) => (k === 1 ? entry.hit_at_1 : entry.hit_at_3)).length / perQuery.length;
  return { recall_at_1: recall(1), recall_at_3: recall(3), per_query: perQuery };
}

const pct = (value: number) => `${(100 * value).toFixed(1)} %`;

async function main(): Promise<void> {
  execFileSync('bash', [path.join(projectRoot(), 'scripts', 'fetch-eval-photos.sh')], { stdio: 'inherit', env: { ...process.env, EVAL_PHOTOS_DIR: photosDir } });
  const files = photos.map((photo) => path.join(photosDir, photo.file));
  say(`eval:search: ${photos.length} photos, ${photos.length} queries`);
  installSdkLogger(createLogger('bench-sdk', 'error'));
  const report = await withScratchStack('eval-search', async (apiUrl) => {
    const source = await createDatasetOverHttp(apiUrl, 'eval-photos', files);
    say(`  source dataset READY in ${source.seconds.toFixed(1)} s`);
    const { listed, chosen } = await activeEnrichment(apiUrl, source.datasetId);
    say(`  list_models: ${listed.map((model) => `${model.id} (${model.type}, ${model.status})`).join('; ')}`);
    if (Object.keys(chosen).length === 0) throw new Error('list_models reports no Active model');
    say(`  enriching with ${JSON.stringify(chosen)}`);
    const enriched = await enrichOverHttp(apiUrl, source.datasetId, chosen);
    say(`  enriched dataset READY in ${enriched.seconds.toFixed(1)} s`);

    const runs: Record<string, ReturnType<typeof evaluate>> = {};
    for (const [dataset, id] of [['enriched', enriched.datasetId], ['source', source.datasetId]] as const) {
      for (const mode of ['caption', 'semantic'] as const) {
        const rankings = new Map<string, Ranked[]>();
        for (const photo of photos) rankings.set(photo.file, await ranking(apiUrl, id, mode, photo.query));
        runs[`${dataset}/${mode}`] = evaluate(rankings);
        say(`  ${`${dataset}/${mode}`.padEnd(18)} recall@1 ${pct(runs[`${dataset}/${mode}`].recall_at_1)}  recall@3 ${pct(runs[`${dataset}/${mode}`].recall_at_3)}`);
      }
    }

    const described = await describedMedia(apiUrl, enriched.datasetId);
    const coco = cocoVocabulary();
    const lower = (values: string[]) => values.map((value) => value.toLowerCase());
    const labelling = photos.map((photo) => {
      const { caption = null, labels = [] } = described.get(photo.file) ?? {};
      const found = new Set(lower(labels));
      const cocoLabels = lower(labels).filter((label) => coco.names.has(label));
      const expected = lower(photo.expect.coco);
      return {
        file: photo.file,
        caption,
        labels,
        expected_coco: photo.expect.coco,
        coco_found: expected.filter((name) => found.has(name)),
        coco_labels_not_expected: cocoLabels.filter((label) => !expected.includes(label)),
        expected_imagenet: photo.expect.imagenet ?? null,
        imagenet_hit: photo.expect.imagenet ? lower(photo.expect.imagenet).some((name) => found.has(name)) : null,
      };
    });
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    const expectedTotal = sum(labelling.map((entry) => entry.expected_coco.length));
    const foundTotal = sum(labelling.map((entry) => entry.coco_found.length));
    const cocoLabelTotal = foundTotal + sum(labelling.map((entry) => entry.coco_labels_not_expected.length));
    const imagenet = labelling.filter((entry) => entry.imagenet_hit !== null);
    return {
      date: new Date().toISOString(),
      machine: benchMachine(),
      photos: photos.length,
      list_models: listed,
      applied: chosen,
      seconds: { create_source: source.seconds, enrich: enriched.seconds },
      enrichment_timeline: enriched.timeline,
      recall: Object.fromEntries(Object.entries(runs).map(([run, result]) => [run, { recall_at_1: result.recall_at_1, recall_at_3: result.recall_at_3 }])),
      labels_vs_expected: {
        coco_vocabulary_from: coco.from,
        coco_recall: expectedTotal === 0 ? null : foundTotal / expectedTotal,
        coco_precision: cocoLabelTotal === 0 ? null : foundTotal / cocoLabelTotal,
        coco_expected: expectedTotal,
        coco_found: foundTotal,
        imagenet_hits: imagenet.filter((entry) => entry.imagenet_hit).length,
        imagenet_photos: imagenet.length,
      },
      runs,
      labelling,
    };
  });
  writeReport('eval-search', 'eval-search', report, markdown(report));
}

function markdown(report: {
  date: string;
  machine: ReturnType<typeof benchMachine>;
  applied: Record<string, string>;
  seconds: { create_source: number; enrich: number };
  runs: Record<string, ReturnType<typeof evaluate>>;
  labelling: Array<{ file: string; caption: string | null; labels: string[]; expected_coco: string[]; coco_found: string[]; coco_labels_not_expected: string[]; imagenet_hit: boolean | null }>;
  labels_vs_expected: { coco_recall: number | null; coco_precision: number | null; coco_expected: number; coco_found: number; imagenet_hits: number; imagenet_photos: number; coco_vocabulary_from: string };
}): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  const top = (entries: Ranked[]) => entries.map((entry) => `${entry.file}${entry.distance === null ? '' : ` (${entry.distance.toFixed(3)})`}`).join(', ') || '—';
  const captionOf = new Map(report.labelling.map((entry) => [entry.file, entry.caption]));
  const lines = [
    `# Search evaluation on the ${photos.length} eval photos (${report.date.slice(0, 10)})`,
    '',
    `Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memory_gib} GiB, Node ${report.machine.node}. ` +
      `Enriched with ${Object.entries(report.applied).map(([type, id]) => `${type} = \`${id}\``).join(', ')} ` +
      `(source READY in ${report.seconds.create_source.toFixed(1)} s, enrichment ${report.seconds.enrich.toFixed(1)} s).`,
    '',
    'A hit @k: the photo (or one of its `also` files) among the first k media of the ranking. The baseline is the un-enriched source dataset.',
    '',
    '| dataset | search | recall@1 | recall@3 |',
    '| --- | --- | ---: | ---: |',
    ...Object.entries(report.runs).map(([run, result]) => `| ${run.split('/')[0]} | ${run.split('/')[1]} | ${pct(result.recall_at_1)} | ${pct(result.recall_at_3)} |`),
    '',
    `Labels vs expected (informational): COCO objects expected ${report.labels_vs_expected.coco_expected}, found among labels ${report.labels_vs_expected.coco_found} ` +
      `(recall ${report.labels_vs_expected.coco_recall === null ? 'n/a' : pct(report.labels_vs_expected.coco_recall)}, precision of COCO-named labels ` +
      `${report.labels_vs_expected.coco_precision === null ? 'n/a' : pct(report.labels_vs_expected.coco_precision)}; COCO names from ${report.labels_vs_expected.coco_vocabulary_from}); ` +
      `an expected ImageNet class among the labels for ${report.labels_vs_expected.imagenet_hits} of ${report.labels_vs_expected.imagenet_photos} photos.`,
    '',
  ];
  for (const mode of ['caption', 'semantic'] as const) {
    const misses = report.runs[`enriched/${mode}`].per_query.filter((entry) => !entry.hit_at_3);
    lines.push(`## Misses @3 of ${mode} search on the enriched dataset (${misses.length})`, '', '| photo | query | rank | its caption | top 3 |', '| --- | --- | ---: | --- | --- |');
    for (const entry of misses) lines.push(`| ${entry.file} | ${cell(entry.query)} | ${entry.rank ?? '—'} | ${cell(captionOf.get(entry.file) ?? '—')} | ${cell(top(entry.top3))} |`);
    lines.push('');
  }
  lines.push('## Per query (enriched dataset)', '', '| photo | query | caption rank | semantic rank | its caption | semantic top 3 |', '| --- | --- | ---: | ---: | --- | --- |');
  const semantic = new Map(report.runs['enriched/semantic'].per_query.map((entry) => [entry.file, entry]));
  for (const entry of report.runs['enriched/caption'].per_query) {
    const other = semantic.get(entry.file)!;
    lines.push(`| ${entry.file} | ${cell(entry.query)} | ${entry.rank ?? '—'} | ${other.rank ?? '—'} | ${cell(captionOf.get(entry.file) ?? '—')} | ${cell(top(other.top3))} |`);
  }
  lines.push('', '## Labels per photo', '', '| photo | labels | expected COCO | found | COCO labels not expected | ImageNet hit |', '| --- | --- | --- | --- | --- | --- |');
  for (const entry of report.labelling) {
    const hit = entry.imagenet_hit === null ? '' : entry.imagenet_hit ? 'yes' : 'no';
    lines.push(`| ${entry.file} | ${cell(entry.labels.join(', '))} | ${entry.expected_coco.join(', ')} | ${entry.coco_found.join(', ')} | ${entry.coco_labels_not_expected.join(', ')} | ${hit} |`);
  }
  return `${lines.join('\n')}\n`;
}

runBench(main);
