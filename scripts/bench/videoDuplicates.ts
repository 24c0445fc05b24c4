/**
 * `npm run bench:video-duplicates`: whether duplicate review finds the copies of a video clip (issue 46), through the
 * real API and worker. Ten clips, each a black second and then a slow zoom into one of the eval photos, each with four
 * copies: re-encoded (x264 crf 35), resized (480×270), trimmed (its first 2.3 s cut) and behind a 3-s intro (one test
 * pattern for all ten, so the intros pair with each other too). Every clip opens on the same black second. A pair is
 * two videos in one group of GET /dataset/{id}/duplicates at the defaults; the truth is the planted families.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../lib/logger';
import { installSdkLogger } from '../../workers/main';
import { evalPhotos } from '../../test/support/evalPhotos';
import { makeClip, type ClipVariant } from '../../test/support/media';
import { benchMachine, createDatasetOverHttp, runBench, say, withScratchStack, writeReport } from './common';

const PHOTOS = ['skimage-rocket.jpg', 'skimage-coffee.jpg', 'opencv-baboon.jpg', 'opencv-fruits.jpg', 'plasma-boats.jpg', 'mate-dune.jpg', 'darknet-horses.jpg', 'opencv-messi.jpg', 'sklearn-china.jpg', 'ultralytics-bus.jpg'];
const VARIANTS: Record<string, ClipVariant> = { original: {}, reencoded: { crf: 35 }, resized: { size: '480x270', crf: 28 }, trimmed: { trimSeconds: 2.3 }, intro: { introSeconds: 3 } };
const SECONDS = 8;

interface Group {
  members: Array<{ media_id: string; file_name: string }>;
  pairs: Array<{ tier: string; reason: string }>;
}

const familyOf = (fileName: string) => fileName.split('~')[0];
const pairsWithin = (count: number) => (count * (count - 1)) / 2;
const round3 = (value: number) => Math.round(value * 1000) / 1000;

async function main(): Promise<void> {
  installSdkLogger(createLogger('bench-sdk', 'error'));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-video-duplicates-'));
  try {
    const files = evalPhotos(...PHOTOS).flatMap((picture, index) =>
      Object.entries(VARIANTS).map(([variant, change]) => makeClip(picture, SECONDS, path.join(scratch, `clip${index}~${variant}.mp4`), change)),
    );
    say(`bench:video-duplicates: ${files.length} videos (${PHOTOS.length} clips × ${Object.keys(VARIANTS).length}) on ${os.cpus()[0].model}, ${os.cpus().length} cores`);
    const { groups, seconds } = await withScratchStack('video-duplicates', async (apiUrl) => {
      const creation = await createDatasetOverHttp(apiUrl, 'video-duplicates', files);
      const response = await fetch(`${apiUrl}/dataset/${creation.datasetId}/duplicates?page_size=200&members_limit=1000`);
      if (!response.ok) throw new Error(`GET duplicates answered ${response.status}: ${await response.text()}`);
      return { groups: ((await response.json()) as { groups: Group[] }).groups, seconds: creation.seconds };
    });

    let grouped = 0;
    let right = 0;
    const foundPerVariant: Record<string, number> = Object.fromEntries(Object.keys(VARIANTS).map((variant) => [variant, 0]));
    for (const group of groups) {
      const names = group.members.map((member) => member.file_name);
      grouped += pairsWithin(names.length);
      const families = new Map<string, number>();
      for (const name of names) families.set(familyOf(name), (families.get(familyOf(name)) ?? 0) + 1);
      for (const count of families.values()) right += pairsWithin(count);
      const largest = [...families.entries()].sort((a, b) => b[1] - a[1])[0][0];
      for (const name of names) if (familyOf(name) === largest && names.some((other) => other === `${largest}~original.mp4`)) foundPerVariant[name.split('~')[1].replace('.mp4', '')]++;
    }
    const planted = PHOTOS.length * pairsWithin(Object.keys(VARIANTS).length);
    const precision = grouped ? right / grouped : null;
    const recall = right / planted;
    const families = groups.filter((group) => new Set(group.members.map((member) => familyOf(member.file_name))).size > 1).length;
    say(`  ${groups.length} groups; pairs grouped ${grouped}, right ${right}, planted ${planted}: precision ${precision === null ? 'n/a' : round3(precision)} recall ${round3(recall)}`);
    say(`  grouped with their original: ${Object.entries(foundPerVariant).map(([variant, found]) => `${variant} ${found}/${PHOTOS.length}`).join(', ')}; groups mixing clips: ${families}`);
    writeReport('video-duplicates', 'video-duplicates', {
      date: new Date().toISOString(),
      machine: benchMachine(),
      method:
        `${PHOTOS.length} clips of ${SECONDS + 1} s (a black second, then a slow zoom into an eval photo, 640×360, 10 fps, x264 crf 23), each with a re-encode (crf 35), a resize (480×270), ` +
        'a copy trimmed by 2.3 s at the start and one behind a 3-s test-pattern intro (the same intro for all); every clip opens on the same black second. ' +
        'A pair is two videos in one group of GET /dataset/{id}/duplicates at the defaults (similarity 0.90, exact and near-identical); frames are sampled a second apart.',
      videos: files.length,
      groups: groups.length,
      pairs: { grouped, right, planted, precision: precision === null ? null : round3(precision), recall: round3(recall) },
      grouped_with_original: foundPerVariant,
      groups_mixing_clips: families,
      partial_groups: groups
        .filter((group) => group.members.length !== Object.keys(VARIANTS).length)
        .map((group) => ({ members: group.members.map((member) => member.file_name).sort(), reasons: group.pairs.map((pair) => pair.reason) })),
      reasons: groups.flatMap((group) => group.pairs.map((pair) => pair.reason)).slice(0, 10),
      seconds_noisy: { creation: seconds },
    } as { date: string });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

runBench(main);
