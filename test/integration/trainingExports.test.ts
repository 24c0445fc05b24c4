import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { readWithPycocotools } from '../support/coco';
import { createReadyDataset, newDatasetWithTransaction, waitForTask } from '../support/datasets';
import { exportWholeDataset } from '../support/exportArchives';
import { storedEntryNames } from '../support/zip';
import { readExport } from '../support/exportReaders';
import { startTestStack } from '../support/testStack';
import { headVersionId } from '../support/versions';

type Stack = Awaited<ReturnType<typeof startTestStack>>;

/** The class folders sent: bird 2, cat 4, dog 3 pictures, each of its own colour and size. */
const FOLDERS: Record<string, number> = { cat: 4, dog: 3, bird: 2 };
const SPLITS = ['train', 'val', 'test'];

interface Expected {
  id: string;
  file_name: string;
  width: number;
  height: number;
  label: string | null;
  split: string;
}

/**
 * Training-ready exports of the user's labels (issue 45 item 4): a dataset created through the API from
 * class folders with labels_from=folder, splits added as custom metadata and declared, one image's
 * label blanked — exported as COCO, YOLO, Hugging Face and ImageFolder, each read back by its own
 * library: pycocotools, supervision, `datasets`, and a folder count for ImageFolder.
 */
describe('training-ready exports of the user classes', () => {
  let stack: Stack;
  let datasetId: string;
  let expected: Expected[];
  const classes = Object.keys(FOLDERS).sort();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'training-exports-'));

  beforeAll(async () => {
    stack = await startTestStack();
    const created = await newDatasetWithTransaction(stack, 'class folders');
    datasetId = created.datasetId;
    const request = stack.request.post(`/api/v1/ingestion/${datasetId}/data_files/${created.transId}`);
    let n = 0;
    for (const [label, count] of Object.entries(FOLDERS)) {
      for (let i = 0; i < count; i++, n++) {
        // Names distinct across folders, so the test holds whether a media keeps its folder in its name or not.
        const file = path.join(scratch, `${label}-${i}.png`);
        await sharp({ create: { width: 40 + 8 * n, height: 30 + 4 * n, channels: 3, background: { r: 25 * n, g: 255 - 20 * n, b: (70 * n) % 256 } } })
          .png()
          .toFile(file);
        request.attach('files', file, { filepath: `${label}/${label}-${i}.png` } as { filename?: string });
      }
    }
    await request.expect(202);
    await stack.request.post(`/api/v1/ingestion/${datasetId}/process_files/${created.transId}`).query({ labels_from: 'folder' }).expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 600_000)).status).toBe('COMPLETED');
    const { label_field: labelField } = (await stack.request.get(`/api/v1/dataset/${datasetId}/label_fields`).expect(200)).body;
    expect(labelField).toEqual(expect.any(String));

    // Splits by media id (whatever the names), and one dog's label blanked: an image without a class.
    const versionId = await headVersionId(stack.deps.db, datasetId);
    const media = await stack.deps.db('media').where({ version_id: versionId }).orderBy('file_name').select('id', 'file_name', 'width', 'height', 'custom_metadata');
    expect(media).toHaveLength(9);
    const blanked = media.find((row) => row.custom_metadata[labelField] === 'dog')!.id;
    const records = media.map((row, i) => ({ media_id: row.id, split: SPLITS[i % 3], ...(row.id === blanked ? { [labelField]: '' } : {}) }));
    fs.writeFileSync(path.join(scratch, 'splits.json'), JSON.stringify(records));
    await stack.request.post(`/api/v1/dataset/${datasetId}/custom_metadata`).attach('file', path.join(scratch, 'splits.json')).expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).status).toBe('COMPLETED');
    await stack.request.put(`/api/v1/dataset/${datasetId}/label_fields`).send({ label_field: labelField, split_field: 'split' }).expect(202);
    expect((await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'], 300_000)).status).toBe('COMPLETED');
    expected = media.map((row, i) => ({
      id: row.id,
      file_name: row.file_name,
      width: row.width,
      height: row.height,
      label: row.id === blanked ? null : row.custom_metadata[labelField],
      split: SPLITS[i % 3],
    }));
  }, 900_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const inSplit = (split: string) => expected.filter((media) => media.split === split);

  it('exports COCO with the classes as categories and a whole-image annotation per labelled image, whole and per split (pycocotools)', async () => {
    const { entries } = await exportWholeDataset(stack, datasetId, { file_name: 'coco', export_format: 'coco' });
    expect([...entries.keys()].filter((name) => name.startsWith('annotations')).sort()).toEqual([
      'annotations.json',
      'annotations/instances_test.json',
      'annotations/instances_train.json',
      'annotations/instances_val.json',
    ]);
    const read = (name: string) => {
      fs.writeFileSync(path.join(scratch, 'coco.json'), entries.get(name)!);
      return readWithPycocotools(path.join(scratch, 'coco.json'));
    };
    const check = (reading: ReturnType<typeof read>, media: Expected[]) => {
      expect(reading.categories).toEqual(classes);
      expect(reading.annotations).toBe(media.filter((m) => m.label !== null).length);
      const byId = new Map(reading.images.map((image) => [image.media_id, image]));
      expect([...byId.keys()].sort()).toEqual(media.map((m) => m.id).sort());
      for (const m of media) {
        expect(byId.get(m.id)!.labels).toEqual(m.label === null ? [] : [m.label]);
        expect(byId.get(m.id)!.boxes).toEqual(m.label === null ? [] : [[0, 0, m.width, m.height]]);
      }
    };
    check(read('annotations.json'), expected);
    for (const split of SPLITS) check(read(`annotations/instances_${split}.json`), inSplit(split));
  });

  it('exports YOLO with the classes as names and a whole-image box per labelled image in split folders (supervision)', async () => {
    const { entries } = await exportWholeDataset(stack, datasetId, { file_name: 'yolo', export_format: 'yolo' });
    const reading = readExport('yolo-splits', entries);
    expect(reading.classes).toEqual(classes);
    expect(reading.data_yaml).toEqual({ train: 'images/train', val: 'images/val', test: 'images/test', nc: classes.length });
    expect(Object.keys(reading.splits).sort()).toEqual([...SPLITS].sort());
    for (const split of SPLITS) {
      const images = reading.splits[split];
      const media = inSplit(split);
      // YOLO keeps one folder per split: a name's folders are joined into its file name.
      expect(Object.keys(images).sort()).toEqual(media.map((m) => m.file_name.replaceAll('/', '__')).sort());
      for (const m of media) {
        const image = images[m.file_name.replaceAll('/', '__')];
        expect([image.width, image.height]).toEqual([m.width, m.height]);
        expect(image.boxes).toEqual(m.label === null ? [] : [{ label: m.label, xyxy: [0, 0, m.width, m.height] }]);
      }
    }
  });

  it('exports Hugging Face splits with a ClassLabel label column (datasets)', async () => {
    const { entries, archive } = await exportWholeDataset(stack, datasetId, { file_name: 'hf', export_format: 'hf' });
    expect([...entries.keys()].filter((name) => name.startsWith('data/')).sort()).toEqual(SPLITS.map((split) => `data/${split}-00000-of-00001.parquet`).sort());
    // The Parquet files hold the images' compressed bytes: stored as they are, like the other formats' images.
    const stored = await storedEntryNames(archive);
    for (const split of SPLITS) expect(stored.has(`data/${split}-00000-of-00001.parquet`)).toBe(true);
    const reading = readExport('hf-splits', entries);
    expect(Object.keys(reading).sort()).toEqual([...SPLITS].sort());
    for (const split of SPLITS) {
      expect(reading[split].label_feature).toEqual({ class_label: true, names: classes });
      const rows = new Map(reading[split].rows.map((row) => [row.media_id, row]));
      expect([...rows.keys()].sort()).toEqual(inSplit(split).map((m) => m.id).sort());
      for (const m of inSplit(split)) {
        expect(rows.get(m.id)).toMatchObject({ label: m.label === null ? -1 : classes.indexOf(m.label), image: [m.width, m.height] });
      }
    }
  });

  it('exports ImageFolder as <split>/<class>/ folders holding each labelled image, the unlabelled one left out and counted', async () => {
    const { entries } = await exportWholeDataset(stack, datasetId, { file_name: 'folders', export_format: 'imagefolder' });
    const counts: Record<string, Record<string, number>> = {};
    for (const name of entries.keys()) {
      const [split, label, ...rest] = name.split('/');
      if (rest.length === 0) continue;
      counts[split] ??= {};
      counts[split][label] = (counts[split][label] ?? 0) + 1;
    }
    const want: Record<string, Record<string, number>> = {};
    for (const m of expected.filter((media) => media.label !== null)) {
      want[m.split] ??= {};
      want[m.split][m.label!] = (want[m.split][m.label!] ?? 0) + 1;
    }
    expect(counts).toEqual(want);
    const summary = JSON.parse(entries.get('classes.json')!.toString('utf8'));
    expect(summary).toMatchObject({ split_field: 'split', classes, images: want, left_out: { unlabelled: 1, videos_and_undecodable: 0 } });
    // Each image's own bytes under its class.
    const m = expected.find((media) => media.label !== null)!;
    const [entry] = [...entries.keys()].filter((name) => name.startsWith(`${m.split}/${m.label}/`) && name.endsWith(path.posix.basename(m.file_name)));
    expect((await sharp(entries.get(entry)!).metadata()).width).toBe(m.width);
  });

  it('refuses an imagefolder export of a dataset without a label field with 422, starting nothing', async () => {
    const file = path.join(scratch, 'plain.png');
    await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 1, g: 2, b: 3 } } }).png().toFile(file);
    const plain = await createReadyDataset(stack, 'no labels', [file]);
    const response = await stack.request.get(`/api/v1/dataset/${plain}/export_context_async`).query({ file_name: 'x', export_format: 'imagefolder' }).expect(422);
    expect(response.body.detail).toMatch(/^query\.export_format: imagefolder exports the classes of a label field/);
    expect(await stack.deps.db('tasks').where({ dataset_id: plain, task_type: 'EXPORT' }).count({ n: '*' }).first()).toEqual({ n: '0' });
  });
});
