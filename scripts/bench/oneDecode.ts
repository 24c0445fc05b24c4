/**
 * `npx tsx scripts/bench/oneDecode.ts [N] [ROUNDS] [DIR]`: CPU ms per image of the decode stages, before
 * and after the ingest's one decode made the model input too (issue 15), in one process and
 * interleaved round by round so both see the same machine load; medians of ROUNDS (default 3) over
 * the first N (default 300) bench images, or of the images in DIR (e.g. bench/data/photos, the large
 * real photos the bench variants are made from). The model itself is the same either way and measured once
 * (one inference thread: no spinning threads to inflate CPU time on a shared machine).
 * Results go to bench/results/one-decode/one-decode-<N>-<date>.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../lib/config';
import { analyzeImage } from '../../lib/media/imageAnalysis';
import { imagePixels, loadImageEncoder } from '../../lib/ml/imageEncoder';
import { benchMachine, prepareImages, say, writeReport, runBench } from './common';

const count = Number(process.argv[2] ?? 300);
const rounds = Number(process.argv[3] ?? 3);

async function cpuMsPerImage(files: string[], fn: (file: string) => Promise<unknown>): Promise<number> {
  const cpu = process.cpuUsage();
  for (const file of files) await fn(file);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000 / files.length;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round1 = (value: number) => Math.round(value * 10) / 10;

async function main(): Promise<void> {
  const dir = process.argv[4];
  const files = (dir ? fs.readdirSync(dir).map((name) => path.join(dir, name)) : await prepareImages(2000)).slice(0, count);
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' });
  const encoder = await loadImageEncoder(config.models.dir, config.models.imageModel, 1);
  const spec = encoder.input;
  const samples = { ingestBefore: [] as number[], embedDecode: [] as number[], ingestAfter: [] as number[], readPrepared: [] as number[] };
  const prepared = `${fs.mkdtempSync('/tmp/one-decode-')}/input.raw`;
  for (let round = 0; round < rounds; round++) {
    samples.ingestBefore.push(await cpuMsPerImage(files, (file) => analyzeImage(file)));
    samples.embedDecode.push(await cpuMsPerImage(files, (file) => imagePixels(file, spec)));
    samples.ingestAfter.push(
      await cpuMsPerImage(files, async (file) => fs.promises.writeFile(prepared, (await analyzeImage(file, spec)).modelInput!)),
    );
    samples.readPrepared.push(await cpuMsPerImage(files, () => fs.promises.readFile(prepared)));
    say(`round ${round + 1}: ${JSON.stringify(Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, round1(v[round])])))}`);
  }
  const pixels = await Promise.all(files.slice(0, 64).map((file) => imagePixels(file, spec)));
  const modelMs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < pixels.length; i += 16) await encoder.encodePixels(pixels.slice(i, i + 16));
    const used = process.cpuUsage(cpu);
    modelMs.push((used.user + used.system) / 1000 / pixels.length);
  }
  await encoder.close();
  fs.rmSync(prepared, { force: true });
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, round1(median(v))])) as Record<keyof typeof samples, number>;
  const model = round1(median(modelMs));
  const report = {
    date: new Date().toISOString(),
    machine: benchMachine(),
    images: files.length,
    source: dir ?? 'bench images (prepareImages)',
    rounds,
    cpu_ms_per_image_median: {
      before: { ingest_decode_thumbnail_quality: m.ingestBefore, embedding_decode: m.embedDecode, model, decode_total: round1(m.ingestBefore + m.embedDecode) },
      after: { ingest_decode_thumbnail_quality_model_input: m.ingestAfter, embedding_read_prepared: m.readPrepared, model, decode_total: round1(m.ingestAfter + m.readPrepared) },
    },
    samples,
    model_samples: modelMs,
  };
  say(JSON.stringify(report.cpu_ms_per_image_median));
  writeReport('one-decode', `one-decode-${dir ? `${path.basename(dir)}-` : ''}${files.length}`, report);
}

runBench(main);
