/**
 * `npm run bench:label-fixes [-- IMAGES [MEDIA]]`: fixing the user's own labels.
 *
 * Part 1, real photos through the real API and worker: IMAGES Fashion-MNIST photos (default 1,000;
 * scripts/fetch-labelled-images.sh) sent as class folders (labels_from=folder) with 10 % of them in a wrong
 * folder (fixed seed). Propagation from 5 correctly labelled seeds of each of three classes at three similarities:
 * the preview's counts against what the propagation then labels, and its precision and recall against the true
 * classes (each undone before the next). Then the label check's suggestions accepted at three scores: how many
 * flips they fix and how many correct labels they break (each undone).
 *
 * Part 2, speed at scale, in Postgres alone: MEDIA labelled media (default 100,000; 20 classes) with 10,000
 * flagged, every suggestion accepted (one undoable action with its history) and undone; the peer in the same run
 * is a bare UPDATE of the same rows that keeps no history.
 * Results go to bench/results/label-fixes/label-fixes-<date>.json.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDb } from '../../db/connection';
import type { DatasetRow } from '../../db/repositories/datasets';
import { ensureDatabase } from '../../lib/embedded/postgres';
import { analyzeExploredTables } from '../../db/repositories/plannerStatistics';
import { projectRoot } from '../../lib/projectRoot';
import { acceptSuggestions, undoLabels } from '../../services/groundTruth';
import { benchMachine, runBench, say, startBenchStack, timed, waitForNewestTask, withBenchDatabase, withScratchPostgres, writeReport } from './common';
import { seedSyntheticDataset } from './syntheticDataset';

const images = Number(process.argv[2] ?? 1000);
const media = Number(process.argv[3] ?? 100_000);
const NOISE_RATE = 0.1;
const SEED = 27;
const SIMILARITIES = [0.6, 0.75, 0.9];
const SCORES = [0.5, 0.8, 0.95];
const PROBED_CLASSES = ['sneaker', 'trouser', 'bag'];
const labelledDir = path.join(projectRoot(), '.tools', 'labelled-images');

interface Item {
  name: string;
  file: string;
  truth: string;
  given: string;
}

function prepareItems(): Item[] {
  execFileSync('bash', [path.join(projectRoot(), 'scripts', 'fetch-labelled-images.sh'), String(images)], { stdio: 'inherit' });
  const rows = fs.readFileSync(path.join(labelledDir, 'labels.csv'), 'utf8').trim().split('\n').slice(1, images + 1).map((line) => line.split(','));
  const classes = [...new Set(rows.map(([, label]) => label))].sort();
  let seed = SEED;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  // A class is a folder: "T-shirt/top" would be two.
  const folder = (label: string) => label.replaceAll('/', '-');
  return rows.map(([file, label]) => {
    const truth = folder(label);
    let given = truth;
    if (random() < NOISE_RATE) while (given === truth) given = folder(classes[Math.floor(random() * classes.length)]);
    return { name: `${given}/${file}`, file: path.join(labelledDir, file), truth, given };
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the API's answers, read by field
type Answer = Record<string, any>;

async function json(response: Response): Promise<Answer> {
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as Answer;
}

const post = (url: string, body: unknown = {}) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(json);

/** Part 1: real photos, the real API and worker. */
async function realPhotos() {
  const items = prepareItems();
  const byName = new Map(items.map((item) => [item.name, item]));
  return withScratchPostgres('label-fixes', async (postgres, scratch) => {
    const database = 'bench_label_fixes';
    const stack = await startBenchStack(scratch, postgres.url, database);
    const db = createDb(await ensureDatabase(postgres.url, database), 2);
    try {
      const api = stack.apiUrl;
      const created = await json(await fetch(`${api}/ingestion/new_dataset?dataset_name=fashion-folders`));
      const { trans_id: transId } = await json(await fetch(`${api}/ingestion/${created.dataset_id}/data_files`));
      for (let start = 0; start < items.length; start += 50) {
        const form = new FormData();
        for (const item of items.slice(start, start + 50)) form.append('files', await fs.openAsBlob(item.file), item.name);
        const response = await fetch(`${api}/ingestion/${created.dataset_id}/data_files/${transId}`, { method: 'POST', body: form });
        if (response.status !== 202) throw new Error(`upload failed: ${response.status} ${await response.text()}`);
      }
      const indexing = await timed(async () => {
        await json(await fetch(`${api}/ingestion/${created.dataset_id}/process_files/${transId}?labels_from=folder`, { method: 'POST' }));
        await waitForNewestTask(api, created.dataset_id);
      });
      say(`  ${items.length} class-folder photos READY in ${indexing.seconds.toFixed(0)} s`);
      const dataset = `${api}/dataset/${created.dataset_id}`;
      const { head_version_id: versionId } = await db('datasets').where({ id: created.dataset_id }).first('head_version_id');
      const idOf = new Map<string, string>((await db('media').where({ version_id: versionId }).select('id', 'file_name')).map((row) => [row.file_name, row.id]));
      const classes = async () =>
        new Map<string, string | null>(
          (await db('media').where({ version_id: versionId }).select('file_name', db.raw(`custom_metadata->>'label' AS label`))).map((row) => [row.file_name, row.label]),
        );

      const propagation = [];
      for (const probed of PROBED_CLASSES) {
        const seeds = items.filter((item) => item.truth === probed && item.given === probed).slice(0, 5);
        const members = items.filter((item) => item.truth === probed).length;
        for (const minSimilarity of SIMILARITIES) {
          const body = { label: 'probe', selection: { media_ids: seeds.map((seed) => idOf.get(seed.name)) }, min_similarity: minSimilarity, max_neighbours: 200 };
          const preview = await post(`${dataset}/labels/propagate/preview`, body);
          await post(`${dataset}/labels/propagate`, body);
          await waitForNewestTask(api, created.dataset_id);
          const labelled = [...(await classes())].filter(([, label]) => label === 'probe').map(([name]) => byName.get(name)!);
          const right = labelled.filter((item) => item.truth === probed).length;
          const undone = labelled.length > 0 ? await post(`${dataset}/classes/undo`) : { undone: 0 };
          propagation.push({
            class: probed,
            min_similarity: minSimilarity,
            preview: { neighbours: preview.neighbours, changes: preview.changes },
            labelled: labelled.length,
            undone: undone.undone,
            precision: labelled.length ? right / labelled.length : null,
            recall: right / members,
          });
          say(`  propagate ${probed} at ${minSimilarity}: preview ${preview.changes}, labelled ${labelled.length}, precision ${labelled.length ? (right / labelled.length).toFixed(2) : '-'}, recall ${(right / members).toFixed(2)}`);
        }
      }

      const flips = items.filter((item) => item.given !== item.truth).length;
      const suggestions = [];
      for (const minScore of SCORES) {
        const accepted = await timed(() => post(`${dataset}/classes/accept_suggestions`, { min_score: minScore }));
        const now = await classes();
        const wrong = items.filter((item) => now.get(item.name) !== item.truth).length;
        const fixed = items.filter((item) => item.given !== item.truth && now.get(item.name) === item.truth).length;
        const broken = items.filter((item) => item.given === item.truth && now.get(item.name) !== item.truth).length;
        if (accepted.value.changed > 0) await post(`${dataset}/classes/undo`);
        suggestions.push({ min_score: minScore, accepted: accepted.value.changed, seconds: accepted.seconds, flips, fixed, broken, wrong_after: wrong });
        say(`  accept at ≥ ${minScore}: ${accepted.value.changed} changed, ${fixed} of ${flips} flips fixed, ${broken} correct labels broken`);
      }
      return { images: items.length, indexing_seconds: indexing.seconds, propagation, suggestions };
    } finally {
      await db.destroy();
      await stack.stop();
    }
  });
}

class RolledBack extends Error {}

/** Part 2: MEDIA labelled media with 10,000 flagged, in Postgres alone. */
function atScale() {
  return withBenchDatabase('label-fixes-scale', async (db, admin) => {
    const { datasetId, versionId } = await seedSyntheticDataset(db, media, 8);
    await db.raw(`UPDATE media SET custom_metadata = jsonb_build_object('label', 'class-' || (abs(hashtext(id::text)) % 20)) WHERE version_id = ?`, [versionId]);
    await db('dataset_versions').where({ id: versionId }).update({ label_quality: JSON.stringify({ label_field: 'label', split_field: null }) });
    const flag = () =>
      db.raw(
        `INSERT INTO media_issues (version_id, media_id, issue_type, confidence, details)
         SELECT version_id, id, 'mislabel', 0.9, jsonb_build_object('label', custom_metadata->>'label', 'suggested_label', 'class-' || ((abs(hashtext(id::text)) + 1) % 20))
           FROM media WHERE version_id = ? ORDER BY id LIMIT 10000
         ON CONFLICT DO NOTHING`,
        [versionId],
      );
    await flag();
    // As the label check's end leaves them (services/taskTypes.ts commitTaskEnd): fresh planner statistics.
    await analyzeExploredTables(db);
    const dataset: DatasetRow = await db('datasets').where({ id: datasetId }).first();
    const runs = [];
    for (let run = 0; run < 3; run++) {
      const accepted = await timed(() => acceptSuggestions(db, dataset, admin, { minScore: 0 }));
      const undone = await timed(() => undoLabels(db, dataset, admin));
      await flag();
      await analyzeExploredTables(db);
      // The peer: the same 10,000 rows written by one bare UPDATE (rolled back), with no history, no flags cleared and no status held.
      const bare = await timed(() =>
        db
          .transaction(async (trx) => {
            await trx.raw(
              `UPDATE media m SET custom_metadata = m.custom_metadata || jsonb_build_object('label', i.details->>'suggested_label')
                 FROM media_issues i WHERE i.version_id = ? AND i.issue_type = 'mislabel' AND m.version_id = i.version_id AND m.id = i.media_id`,
              [versionId],
            );
            throw new RolledBack();
          })
          .catch((error) => {
            if (!(error instanceof RolledBack)) throw error;
          }),
      );
      runs.push({ accept_seconds: accepted.seconds, changed: accepted.value.changed, undo_seconds: undone.seconds, bare_update_seconds: bare.seconds });
      say(`  ${media} media: accept 10,000 suggestions ${accepted.seconds.toFixed(2)} s, undo ${undone.seconds.toFixed(2)} s; bare UPDATE ${bare.seconds.toFixed(2)} s`);
    }
    return { media, flagged: 10_000, runs };
  });
}

async function main(): Promise<void> {
  say(`bench:label-fixes: ${images} photos, ${media} media on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const real = images > 0 ? await realPhotos() : null;
  const scale = await atScale();
  writeReport('label-fixes', 'label-fixes', { date: new Date().toISOString(), machine: benchMachine(), real, scale } as { date: string });
}

runBench(main);
