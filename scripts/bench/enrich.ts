/**
 * `npm run bench:enrich [-- N]`: a dataset of N images (the bench image set, default 2000), then one
 * enrich_dataset per enrichment type that list_models reports Active (the first Active model of the
 * type, with the models it depends on), and one with every Active model, all on the same source and
 * through the real API, worker, Temporal and Postgres. Each is timed from the request to its task
 * COMPLETED; the copy of the source is told apart by the task's status messages (polled every 250 ms).
 * The API and the worker run in this process, so the peak RSS reported is this process's
 * (process.resourceUsage().maxRSS; Postgres and Temporal are other processes). `--without TYPE,…`
 * leaves types out (to measure the others when one is broken; recorded in the report). A run that
 * fails or stalls is recorded and ends the bench: an ENRICHMENT cannot be aborted, so the source stays
 * READ ONLY. Results go to bench/results/enrich/enrich-<N>-<date>.json and .md.
 */
import os from 'node:os';
import { APPLY_ORDER } from '../../lib/enrichment/catalog';
import { createLogger } from '../../lib/logger';
import { installSdkLogger } from '../../workers/main';
import { activeEnrichment, benchMachine, createDatasetOverHttp, enrichOverHttp, prepareImages, say, withDependencies, withScratchStack, writeReport, runBench } from './common';

const args = process.argv.slice(2);
const count = Number(/^\d+$/.test(args[0] ?? '') ? args[0] : 2000);
const without = args.includes('--without') ? (args[args.indexOf('--without') + 1] ?? '').split(',') : [];

const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
/** This process's peak RSS so far (it only grows) and its RSS now, in MiB. */
const memory = () => ({ peak_rss_mib: mib(process.resourceUsage().maxRSS * 1024), rss_now_mib: mib(process.memoryUsage().rss) });

interface Run {
  run: string;
  models: Record<string, string>;
  seconds: number;
  images_per_second: number;
  /** From the request until the first status message after the copy (the copy, and the first batch of the first model). */
  copy_seconds: number;
  /** seconds − copy_seconds. */
  after_copy_seconds: number;
  after_copy_images_per_second: number;
  steps: Array<{ step: string; seconds: number }>;
  memory_after: ReturnType<typeof memory>;
}

type Failed = { run: string; models: Record<string, string>; error: string };

async function timedEnrichment(apiUrl: string, datasetId: string, run: string, models: Record<string, string>): Promise<Run> {
  const { seconds, timeline } = await enrichOverHttp(apiUrl, datasetId, models);
  const afterCopy = timeline.findIndex((entry) => !/^(Queued|Copying)/.test(entry.status_message));
  const copySeconds = afterCopy < 0 ? seconds : timeline[afterCopy].at_seconds;
  const steps = timeline.map((entry, i) => ({ step: entry.status_message, seconds: (timeline[i + 1]?.at_seconds ?? seconds) - entry.at_seconds }));
  const result = {
    run,
    models,
    seconds,
    images_per_second: count / seconds,
    copy_seconds: copySeconds,
    after_copy_seconds: seconds - copySeconds,
    after_copy_images_per_second: count / (seconds - copySeconds),
    steps,
    memory_after: memory(),
  };
  say(
    `  ${run.padEnd(34)} ${seconds.toFixed(2).padStart(8)} s ${result.images_per_second.toFixed(1).padStart(8)} images/s` +
      `  (copy ${copySeconds.toFixed(2)} s; after it ${result.after_copy_images_per_second.toFixed(1)} images/s)  peak RSS ${result.memory_after.peak_rss_mib} MiB`,
  );
  return result;
}

function markdown(report: {
  date: string;
  machine: ReturnType<typeof benchMachine>;
  load_average: number[];
  without: string[];
  create: { seconds: number; memory_after: ReturnType<typeof memory> };
  runs: Run[];
  failed: Failed[];
  not_run: string[];
}): string {
  const { machine } = report;
  return [
    `# Enrichment speed on ${count} bench images (${report.date.slice(0, 10)})`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}; load average at the start ${report.load_average.map((value) => value.toFixed(2)).join(' / ')} ` +
      '(the machine is shared: figures are noisy). API and worker run in this process; peak RSS is its process.resourceUsage().maxRSS, which only grows.',
    '',
    `Source dataset (process_files → READY): ${report.create.seconds.toFixed(1)} s, ${(count / report.create.seconds).toFixed(1)} images/s; peak RSS after it ${report.create.memory_after.peak_rss_mib} MiB.`,
    '',
    '| enrichment | models | seconds | images/s | copy s | images/s after the copy | peak RSS after (MiB) | RSS now (MiB) |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...report.runs.map(
      (run) =>
        `| ${run.run} | ${Object.values(run.models).join(', ')} | ${run.seconds.toFixed(2)} | ${run.images_per_second.toFixed(1)} | ${run.copy_seconds.toFixed(2)} | ` +
        `${run.after_copy_images_per_second.toFixed(1)} | ${run.memory_after.peak_rss_mib} | ${run.memory_after.rss_now_mib} |`,
    ),
    '',
    ...report.failed.map((run) => `| ${run.run} | ${Object.values(run.models).join(', ')} | failed: ${run.error.replace(/\|/g, '\\|')} | | | | | |`),
    ...report.not_run.map((run) => `| ${run} | | not run (an earlier run failed) | | | | | |`),
    '',
    report.without.length > 0 ? `Left out on request (--without): ${report.without.join(', ')}.` : 'Every Active model of list_models was applied.',
    '',
    '"copy s" runs from the request to the first status message after "Copying the source dataset", so it also holds the first batch (16 images) of the first model.',
    '',
    '## Steps (from the task\'s status messages)',
    '',
    ...report.runs.flatMap((run) => [`- ${run.run}: ${run.steps.map((step) => `${step.step} ${step.seconds.toFixed(2)} s`).join('; ')}`]),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  say(`bench:enrich: ${count} images on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
  const files = await prepareImages(count);
  installSdkLogger(createLogger('bench-sdk', 'error'));
  const loadAverage = os.loadavg();
  const report = await withScratchStack('enrich', async (apiUrl) => {
    const created = await createDatasetOverHttp(apiUrl, 'bench-enrich', files);
    const create = { seconds: created.seconds, memory_after: memory() };
    say(`  create (process_files → READY)     ${created.seconds.toFixed(2).padStart(8)} s ${(count / created.seconds).toFixed(1).padStart(8)} images/s  peak RSS ${create.memory_after.peak_rss_mib} MiB`);
    const { listed, chosen } = await activeEnrichment(apiUrl, created.datasetId);
    if (Object.keys(chosen).length === 0) throw new Error('list_models reports no Active model');
    for (const type of without) delete chosen[type];
    const planned = APPLY_ORDER.filter((type) => chosen[type]).map((type) => {
      const models = withDependencies(listed, chosen, [type]);
      return { run: Object.keys(models).length > 1 ? `${type} (with ${Object.keys(models).filter((other) => other !== type).join(', ')})` : type, models };
    });
    planned.push({ run: without.length > 0 ? `all Active models but ${without.join(', ')}` : 'all Active models', models: chosen });
    const runs: Run[] = [];
    const failed: Failed[] = [];
    for (const { run, models } of planned) {
      try {
        runs.push(await timedEnrichment(apiUrl, created.datasetId, run, models));
      } catch (error) {
        failed.push({ run, models, error: (error as Error).message });
        say(`  ${run}: FAILED: ${(error as Error).message}`);
        break;
      }
    }
    const notRun = planned.slice(runs.length + failed.length).map((entry) => entry.run);
    return { date: new Date().toISOString(), machine: benchMachine(), load_average: loadAverage, images: count, without, list_models: listed, create, runs, failed, not_run: notRun };
  });
  writeReport('enrich', `enrich-${count}${without.length > 0 ? `-without-${without.join('+')}` : ''}`, report, markdown(report));
  if (report.failed.length > 0) process.exitCode = 1;
}

runBench(main);
