/**
 * `npm run bench:label-quality [-- IMAGES]`: real labelled photos (Fashion-MNIST from Debian's
 * package, scripts/fetch-labelled-images.sh; default 2,000) embedded by the service's image model,
 * 10 % of their labels flipped with a fixed seed, and 100 slightly brightened copies planted in the
 * other split. The LABEL_QUALITY check (neighbour search in the embedded index, confident learning,
 * one transaction of writes) runs on a READY dataset made in Postgres, in one activity and then as
 * the service runs it (fan-out chunks, then the final step; their issues must be the same); its mislabel issues are scored
 * against the flips, its leakage issues against the planted pairs. The peer in the same run is
 * cleanlab's find_label_issues (scripts/install-cleanlab.sh) on the same kNN probabilities and on a
 * cross-validated logistic regression over the same embeddings; recall@1-3 of the true class ranks
 * classes by our kNN probabilities and by the regression's. Then the same images go through the real
 * API and worker (DATASET_CREATION, metadata import, LABEL_QUALITY) to time the check against indexing.
 * Results go to bench/results/label-quality/label-quality-<date>.json.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import sharp from 'sharp';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createLabelQualityActivities } from '../../activities/labelQuality';
import { vectorNeighbours } from '../../services/vectorNeighbours';
import { unattended } from '../../services/taskLiveness';
import { createDataset } from '../../db/repositories/datasets';
import { createVectorPointRows } from '../../db/repositories/vectorPoints';
import { loadConfig } from '../../lib/config';
import { loadImageEncoder } from '../../lib/ml/imageEncoder';
import { projectRoot } from '../../lib/projectRoot';
import { LABEL_QUALITY, neighbourProbabilities } from '../../lib/quality/labelQuality';
import { createObjectStore } from '../../lib/storage/createObjectStore';
import { createVectorStore } from '../../lib/vectors/createVectorStore';
import { imageCollection } from '../../lib/vectors/vectorStore';
import type { LabelCheckInput, LabelCheckPlan } from '../../workflows/contracts';
import { benchMachine, createDatasetOverHttp, filesForm, say, timed, waitForNewestTask, withBenchDatabase, withScratchStack, writeReport, runBench } from './common';

const images = Number(process.argv[2] ?? 2000);
const NOISE_RATE = 0.1;
const PLANTED = 100;
const SEED = 27;
/** The fan-out's chunks (ANALYSIS_CHUNK_SIZE in the service) and how many run at once. */
const CHUNK_SIZE = 500;
const CHUNK_CONCURRENCY = 2;
const root = projectRoot();
const labelledDir = path.join(root, '.tools', 'labelled-images');

interface Item {
  file: string;
  truth: string;
  given: string;
  split: string;
  flipped: boolean;
  /** For a planted copy: the index of its original. */
  copyOf?: number;
}

/** The labelled photos with 10 % of the labels flipped (fixed seed), then the planted copies in the other split. */
async function prepareItems(scratch: string): Promise<Item[]> {
  execFileSync('bash', [path.join(root, 'scripts', 'fetch-labelled-images.sh'), String(images)], { stdio: 'inherit' });
  const rows = fs.readFileSync(path.join(labelledDir, 'labels.csv'), 'utf8').trim().split('\n').slice(1, images + 1).map((line) => line.split(','));
  const classes = [...new Set(rows.map(([, label]) => label))].sort();
  let seed = SEED;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const items: Item[] = rows.map(([file, truth, split]) => {
    let given = truth;
    if (random() < NOISE_RATE) while (given === truth) given = classes[Math.floor(random() * classes.length)];
    return { file: path.join(labelledDir, file), truth, given, split, flipped: given !== truth };
  });
  const step = Math.floor(images / PLANTED);
  for (let p = 0; p < PLANTED; p++) {
    const original = p * step;
    const file = path.join(scratch, `copy-${p}.png`);
    await sharp(items[original].file).modulate({ brightness: 1.05 }).toFile(file);
    const { truth, given, split } = items[original];
    items.push({ file, truth, given, split: split === 'train' ? 'test' : 'train', flipped: given !== truth, copyOf: original });
  }
  return items;
}

/** The k of recall@k: whether the true class is among the k most probable classes other than the given one. */
const RECALL_AT = [1, 2, 3];

/** Over every flipped item: the share whose true class is among its first k ranked classes (`ranked[i]`, the given one left out), for each k. */
function recallAtK(ranked: number[][], items: Item[], classes: string[]): Record<string, number> {
  const flips = items.map((item, i) => (item.flipped ? i : -1)).filter((i) => i >= 0);
  return Object.fromEntries(RECALL_AT.map((k) => [`at_${k}`, flips.filter((i) => ranked[i].slice(0, k).includes(classes.indexOf(items[i].truth))).length / flips.length]));
}

/** Classes by falling probability, `given` left out. */
const rankedOtherThan = (probabilities: ArrayLike<number>, given: number): number[] =>
  Array.from(probabilities, (p, c) => ({ p, c }))
    .filter(({ c }) => c !== given)
    .sort((a, b) => b.p - a.p || a.c - b.c)
    .map(({ c }) => c);

/**
 * The share the check adds to indexing, through the real API and worker of a bench stack: the same
 * images indexed by DATASET_CREATION, their labels imported, then one LABEL_QUALITY task; both timed
 * by their tasks' start and end.
 */
async function indexingShare(items: Item[], scratch: string) {
  return withScratchStack('label-quality', async (apiUrl) => {
    const created = await createDatasetOverHttp(apiUrl, 'fashion', items.map((item) => item.file));
    say(`  indexed ${items.length} images through the API and worker in ${created.seconds.toFixed(0)} s`);
    const metadataFile = path.join(scratch, 'labels.json');
    fs.writeFileSync(metadataFile, JSON.stringify(items.map((item) => ({ file_name: path.basename(item.file), class: item.given, split: item.split }))));
    const dataset = `${apiUrl}/dataset/${created.datasetId}`;
    const imported = await fetch(`${dataset}/custom_metadata`, { method: 'POST', body: await filesForm([metadataFile], 'file') });
    if (imported.status !== 202) throw new Error(`metadata import refused: ${imported.status} ${await imported.text()}`);
    await waitForNewestTask(apiUrl, created.datasetId);
    const declared = await fetch(`${dataset}/label_fields`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ label_field: 'class', split_field: 'split' }) });
    if (declared.status !== 202) throw new Error(`label fields refused: ${declared.status} ${await declared.text()}`);
    await waitForNewestTask(apiUrl, created.datasetId);
    const { tasks } = (await (await fetch(`${apiUrl}/tasks?dataset_id=${created.datasetId}`)).json()) as { tasks: Array<{ task_type: string; start_time: string; end_time: string }> };
    const secondsOf = (type: string) => {
      const task = tasks.find((candidate) => candidate.task_type === type)!;
      return (Date.parse(task.end_time) - Date.parse(task.start_time)) / 1000;
    };
    const indexing = secondsOf('DATASET_CREATION');
    const check = secondsOf('LABEL_QUALITY');
    say(`  LABEL_QUALITY task ${check.toFixed(1)} s against DATASET_CREATION ${indexing.toFixed(0)} s: ${((100 * check) / indexing).toFixed(1)} % of indexing`);
    return { indexing_seconds: indexing, label_quality_seconds: check, share_of_indexing: check / indexing };
  });
}

function precisionRecall(flagged: Set<number>, items: Item[]) {
  const flips = items.map((item, i) => (item.flipped ? i : -1)).filter((i) => i >= 0);
  const found = flips.filter((i) => flagged.has(i)).length;
  return { precision: found / Math.max(1, flagged.size), recall: found / flips.length, flagged: flagged.size };
}

async function main(): Promise<void> {
  say(`bench:label-quality: ${images} labelled images on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  execFileSync('bash', [path.join(root, 'scripts', 'install-cleanlab.sh')], { stdio: 'inherit' });
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-label-quality-'));
  try {
    const items = await prepareItems(scratch);
    const config = loadConfig({ ...process.env, DATA_DIR: scratch });
    const encoder = await loadImageEncoder(config.models.dir, config.models.imageModel, 2);
    const embedded = await timed(async () => {
      const vectors: Float32Array[] = [];
      for (let i = 0; i < items.length; i += 32) vectors.push(...(await encoder.encode(items.slice(i, i + 32).map((item) => item.file))));
      return vectors;
    });
    await encoder.close();
    say(`  embedded ${items.length} images in ${embedded.seconds.toFixed(0)} s`);
    const embeddingsFile = path.join(scratch, 'embeddings.f32');
    fs.writeFileSync(embeddingsFile, Buffer.concat(embedded.value.map((vector) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength))));

    await withBenchDatabase('label-quality', async (db, admin) => {
      const vectors = createVectorStore(config, createVectorPointRows(db), { objects: createObjectStore(config), role: 'worker' });
      try {
        const workspace = await db('workspaces').first();
        const dataset = await createDataset(db, { name: 'fashion', ownerId: admin.id, workspaceId: workspace.id, status: 'READY' });
        const ids: string[] = items.map(() => randomUUID());
        await db('media').insert(
          items.map((item, i) => ({
            id: ids[i],
            version_id: dataset.head_version_id,
            kind: 'IMAGE',
            batch_id: dataset.id,
            file_name: path.basename(item.file),
            blob_sha256: String(i).padStart(64, '0'),
            embedded: true,
            custom_metadata: JSON.stringify({ class: item.given, split: item.split }),
          })),
        );
        const collection = imageCollection(dataset.id);
        await vectors.ensureCollection(collection, embedded.value[0].length);
        await vectors.upsert(collection, ids.map((id, i) => ({ id, vector: embedded.value[i] })));
        // The index is loaded by the first search, as in a worker: not counted in the run below.
        await vectors.searchMany(collection, [embedded.value[0]], 1);

        const activities = createLabelQualityActivities({ db, vectors, chunks: { size: CHUNK_SIZE, concurrency: CHUNK_CONCURRENCY } });
        const environment = new MockActivityEnvironment();
        const input = { taskId: randomUUID(), datasetId: dataset.id, labelField: 'class', splitField: 'split', previousStatus: 'READY' as const };
        const labelIssues = () => db('media_issues').where({ version_id: dataset.head_version_id }).orderBy(['media_id', 'issue_type']).select('media_id', 'issue_type', 'confidence', 'details');
        // The peer: the whole check in one activity, as before the fan-out.
        const single = await timed(() => environment.run(activities.checkLabelQuality, input));
        const singleIssues = await labelIssues();
        // The service's check: neighbour-search chunks two at a time (as two workers would take them), then the final step.
        const run = await timed(async () => {
          const checkInput: LabelCheckInput = { taskId: input.taskId, datasetId: dataset.id, fields: { label: 'class', split: 'split' }, stage: 'check_labels' };
          const plan = (await environment.run(activities.planLabelChunks, checkInput)) as LabelCheckPlan | null;
          if (!plan) throw new Error('a check with its fields given always has a plan');
          const { chunks, concurrency, ...rest } = plan;
          const step = { ...rest, chunks: chunks.length };
          const limit = pLimit(concurrency);
          await Promise.all(chunks.map((chunk) => limit(() => new MockActivityEnvironment().run(activities.checkLabelChunk, { ...step, chunk }))));
          return environment.run(activities.aggregateLabelQuality, step);
        });
        const chunkedEqualsSingle = JSON.stringify(await labelIssues()) === JSON.stringify(singleIssues);
        say(`  one activity ${single.seconds.toFixed(2)} s; ${Math.ceil(items.length / CHUNK_SIZE)} chunks of ${CHUNK_SIZE}, ${CHUNK_CONCURRENCY} at a time, ${run.seconds.toFixed(2)} s; same issues: ${chunkedEqualsSingle}`);
        const indexOf = new Map<string, number>(ids.map((id, i) => [id, i]));
        const issues: Array<{ media_id: string; issue_type: string; details: { suggested_label?: string; duplicate_of?: string } }> = await db('media_issues')
          .where({ version_id: dataset.head_version_id })
          .select('media_id', 'issue_type', 'details');
        const mislabels = issues.filter((issue) => issue.issue_type === 'mislabel');
        const ours = precisionRecall(new Set(mislabels.map((issue) => indexOf.get(issue.media_id)!)), items);
        const foundFlips = mislabels.filter((issue) => items[indexOf.get(issue.media_id)!].flipped);
        const suggestedRight = foundFlips.filter((issue) => issue.details.suggested_label === items[indexOf.get(issue.media_id)!].truth).length;
        const leaks = new Set(issues.filter((issue) => issue.issue_type === 'leakage').map((issue) => `${issue.media_id}:${issue.details.duplicate_of}`));
        const plantedFound = items.filter((item, i) => item.copyOf !== undefined && (leaks.has(`${ids[i]}:${ids[item.copyOf]}`) || leaks.has(`${ids[item.copyOf]}:${ids[i]}`))).length;
        say(`  ours: precision ${ours.precision.toFixed(3)}, recall ${ours.recall.toFixed(3)} (${ours.flagged} flagged) in ${run.seconds.toFixed(2)} s; leakage recall ${(plantedFound / PLANTED).toFixed(3)}`);

        // The same kNN probabilities for cleanlab: the neighbours the activity searched, the labels it read.
        const classes = [...new Set(items.map((item) => item.given))].sort();
        const given = items.map((item) => classes.indexOf(item.given));
        const hits = await vectorNeighbours(unattended, vectors, collection, ids, LABEL_QUALITY.neighbours + 1);
        const probabilities = neighbourProbabilities(
          given.map((label, i) => ({
            label,
            neighbours: hits[i].flatMap((hit) => (hit.id === ids[i] ? [] : [{ index: indexOf.get(hit.id)!, similarity: 1 - hit.distance }])),
          })),
          classes.length,
        );
        const jobFile = path.join(scratch, 'cleanlab-job.json');
        fs.writeFileSync(jobFile, JSON.stringify({ given, knn_pred_probs: probabilities.map((p) => Array.from(p)), embeddings_file: embeddingsFile, dim: embedded.value[0].length }));
        const peer = JSON.parse(
          execFileSync(path.join(root, '.tools', 'cleanlab', 'bin', 'python'), [path.join(root, 'scripts', 'bench', 'cleanlab_label_issues.py'), jobFile], { maxBuffer: 64 * 2 ** 20 }).toString(),
        ) as { knn: { issues: number[]; seconds: number }; logreg: { issues: number[]; seconds: number; top: number[][] } };
        const cleanlab = precisionRecall(new Set(peer.knn.issues), items);
        const cleanlabLogreg = precisionRecall(new Set(peer.logreg.issues), items);
        say(`  cleanlab on the same kNN probabilities: precision ${cleanlab.precision.toFixed(3)}, recall ${cleanlab.recall.toFixed(3)} (${cleanlab.flagged} flagged) in ${peer.knn.seconds.toFixed(2)} s`);
        say(`  cleanlab on 5-fold logistic regression: precision ${cleanlabLogreg.precision.toFixed(3)}, recall ${cleanlabLogreg.recall.toFixed(3)} (${cleanlabLogreg.flagged} flagged) in ${peer.logreg.seconds.toFixed(2)} s`);
        const recall = {
          ours: recallAtK(probabilities.map((p, i) => rankedOtherThan(p, given[i])), items, classes),
          logistic_regression: recallAtK(peer.logreg.top, items, classes),
        };
        say(`  recall@1/2/3 of the true class over all flips: ours ${Object.values(recall.ours).map((r) => r.toFixed(3)).join('/')}, logistic regression ${Object.values(recall.logistic_regression).map((r) => r.toFixed(3)).join('/')}`);
        const share = await indexingShare(items, scratch);

        writeReport('label-quality', 'label-quality', {
          date: new Date().toISOString(),
          machine: benchMachine(),
          method:
            `Fashion-MNIST test images (Debian dataset-fashion-mnist) embedded by ${config.models.imageModel}; ${NOISE_RATE * 100} % of labels flipped (seed ${SEED}); ` +
            `${PLANTED} copies brightened 5 % planted in the other split. Ours: the LABEL_QUALITY activity under MockActivityEnvironment on a READY dataset in Postgres with the vectors in the embedded index ` +
            `(${LABEL_QUALITY.neighbours} neighbours, similarity^${LABEL_QUALITY.similarityPower} votes, confident learning pruned by noise rate). ` +
            'cleanlab 2.9.0 find_label_issues (default filter_by) in the same run, on the same kNN probabilities, and on a 5-fold cross-validated logistic regression over the same embeddings.',
          images: items.length,
          noise_rate: NOISE_RATE,
          flipped: items.filter((item) => item.flipped).length,
          ours: {
            precision: ours.precision,
            recall: ours.recall,
            flagged: ours.flagged,
            suggestion_recall_at_1: suggestedRight / Math.max(1, foundFlips.length),
            recall_at_k: recall.ours,
          },
          cleanlab: { precision: cleanlab.precision, recall: cleanlab.recall, flagged: cleanlab.flagged, seconds: peer.knn.seconds },
          cleanlab_logistic_regression: {
            precision: cleanlabLogreg.precision,
            recall: cleanlabLogreg.recall,
            flagged: cleanlabLogreg.flagged,
            seconds: peer.logreg.seconds,
            recall_at_k: recall.logistic_regression,
          },
          recall_at_k_method: 'Over every flipped label: the true class among the k most probable classes other than the given one (ours: the kNN probabilities the check computes, whose first is the suggestion of an unflagged item)',
          leakage_recall: plantedFound / PLANTED,
          leakage_planted: PLANTED,
          ms_per_1000_media: (run.seconds * 1000 * 1000) / items.length,
          check_seconds: run.seconds,
          fan_out: {
            chunk_size: CHUNK_SIZE,
            concurrency: CHUNK_CONCURRENCY,
            chunks: Math.ceil(items.length / CHUNK_SIZE),
            same_issues_as_one_activity: chunkedEqualsSingle,
            one_activity_seconds: single.seconds,
            one_activity_ms_per_1000_media: (single.seconds * 1000 * 1000) / items.length,
            method: 'ms_per_1000_media and check_seconds time the check as the service runs it (plan, chunks two at a time in one process, final step); the peer is the one-activity check on the same data just before',
          },
          embedding_seconds: embedded.seconds,
          indexing: { ...share, method: 'The same images through the real API and worker of a bench stack: DATASET_CREATION, then a LABEL_QUALITY task after the labels are imported; each timed by its task start_time to end_time' },
        } as { date: string });
      } finally {
        await vectors.close();
      }
    });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runBench(main);
