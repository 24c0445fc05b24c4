import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createReadyDataset, waitForDatasetStatus, waitForTask } from '../support/datasets';
import { evalPhotos } from '../support/evalPhotos';
import { exportFinished, exportWholeDataset } from '../support/exportArchives';
import { readExport } from '../support/exportReaders';
import { photo } from '../support/media';
import { startTestStack } from '../support/testStack';
import { headVersionId } from '../support/versions';

type Stack = Awaited<ReturnType<typeof startTestStack>>;
interface StoredMedia {
  id: string;
  file_name: string;
  width: number;
  height: number;
  /** Labels other than object detection's. */
  labels: string[];
  allLabels: string[];
  objects: Array<{ label: string; box_x: number; box_y: number; box_width: number; box_height: number }>;
}

/**
 * The YOLO and Hugging Face exports of a dataset with labels and detected objects, read back by the
 * libraries their users use: Roboflow supervision (from_yolo) and Hugging Face datasets (load_dataset).
 */
describe('exports other tools load: YOLO and Hugging Face datasets', () => {
  let stack: Stack;
  let datasetId: string;
  let stored: StoredMedia[];
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'export-readers-'));

  beforeAll(async () => {
    stack = await startTestStack();
    // A plain grey picture: no label, and nothing for the detector to find.
    const plain = path.join(scratch, 'plain.png');
    await sharp({ create: { width: 320, height: 200, channels: 3, background: { r: 128, g: 128, b: 128 } } }).png().toFile(plain);
    const sourceId = await createReadyDataset(stack, 'readers', [photo('chelsea'), photo('coffee'), ...evalPhotos('darknet-dog.jpg', 'darknet-horses.jpg'), plain]);
    const csv = path.join(scratch, 'meta.csv');
    fs.writeFileSync(csv, 'file_name,labels\nchelsea.jpg,cat|animal\ndarknet-dog.jpg,outdoor\n');
    await stack.request.post(`/api/v1/dataset/${sourceId}/custom_metadata`).attach('file', csv).expect(202);
    await waitForTask(stack, sourceId, ['COMPLETED']);
    // Object detection makes an enriched copy with boxes.
    const enriched = (await stack.request.post(`/api/v1/dataset/${sourceId}/enrich_dataset`).send({ enrichment_models: { OBJECT_DETECTION: 'coco-centernet@1' } }).expect(200)).body;
    datasetId = enriched.dataset_id;
    expect(await waitForTask(stack, datasetId, ['COMPLETED', 'FAILED'])).toMatchObject({ status: 'COMPLETED' });
    await waitForDatasetStatus(stack, datasetId, ['READY']);

    // What the service stored, to compare the readings with.
    const { db } = stack.deps;
    const versionId = await headVersionId(db, datasetId);
    const media = await db('media').where({ version_id: versionId }).orderBy('file_name').select('id', 'file_name', 'width', 'height');
    stored = await Promise.all(
      media.map(async (row) => ({
        ...row,
        // Object detection also labels each image with the categories it found; those have their boxes already.
        labels: (await db('media_labels').where({ version_id: versionId, media_id: row.id }).whereNot({ source: 'OBJECT_DETECTION' }).orderBy('label')).map(
          (label) => label.label,
        ),
        allLabels: (await db('media_labels').where({ version_id: versionId, media_id: row.id }).orderBy('label')).map((label) => label.label),
        objects: await db('media_objects').where({ version_id: versionId, media_id: row.id }).select('label', 'box_x', 'box_y', 'box_width', 'box_height'),
      })),
    );
    // The comparison means something: a labelled image, an image with objects, one with neither.
    // (Detection finds the cat too, and its label takes over the imported one of the same name.)
    expect(stored.find((m) => m.file_name === 'chelsea.jpg')!.labels).toEqual(['animal']);
    expect(stored.find((m) => m.file_name === 'darknet-dog.jpg')!.objects.map((o) => o.label)).toEqual(expect.arrayContaining(['dog', 'bicycle']));
    expect(stored.find((m) => m.file_name === 'plain.png')).toMatchObject({ labels: [], objects: [] });
  }, 600_000);
  afterAll(async () => {
    await stack?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('exports YOLO that supervision reads: every image decodes, a whole-image box per label, the detected boxes, an empty label file without boxes', async () => {
    const { entries, status } = await exportWholeDataset(stack, datasetId, { file_name: 'yolo', export_format: 'yolo' });
    expect(status).toMatchObject({ export_format: 'yolo', include_images: true });
    expect(entries.get('labels/plain.txt')!.toString()).toBe('');
    const reading = readExport('yolo', entries);

    expect(new Set(reading.classes)).toEqual(new Set(stored.flatMap((m) => [...m.labels, ...m.objects.map((o) => o.label)])));
    expect(Object.keys(reading.images).sort()).toEqual(stored.map((m) => m.file_name).sort());
    for (const media of stored) {
      const image = reading.images[media.file_name];
      expect({ width: image.width, height: image.height }).toEqual({ width: media.width, height: media.height });
      const expected = [
        ...media.labels.map((label) => ({ label, xyxy: [0, 0, media.width, media.height] })),
        ...media.objects.map((o) => ({
          label: o.label,
          xyxy: [o.box_x * media.width, o.box_y * media.height, (o.box_x + o.box_width) * media.width, (o.box_y + o.box_height) * media.height],
        })),
      ];
      const byLabelThenX = (a: { label: string; xyxy: number[] }, b: { label: string; xyxy: number[] }) => a.label.localeCompare(b.label) || a.xyxy[0] - b.xyxy[0];
      expected.sort(byLabelThenX);
      const read = [...image.boxes].sort(byLabelThenX);
      expect(read.map((box) => box.label)).toEqual(expected.map((box) => box.label));
      // Six decimals of a fraction: within a hundredth of a pixel, once the box is cut to the image.
      const inside = (value: number, j: number) => Math.min(Math.max(value, 0), j % 2 ? media.height : media.width);
      read.forEach((box, i) => box.xyxy.forEach((value, j) => expect(Math.abs(value - inside(expected[i].xyxy[j], j))).toBeLessThan(0.05)));
    }
  });

  it('exports a Hugging Face dataset that datasets loads with an Image column: every image decodes, the records are the stored ones', async () => {
    const { entries, status } = await exportWholeDataset(stack, datasetId, { file_name: 'hf', export_format: 'hf' });
    expect(status).toMatchObject({ export_format: 'hf', include_images: true });
    expect([...entries.keys()].sort()).toEqual(['README.md', 'data/train-00000-of-00001.parquet']);
    const reading = readExport('hf', entries);

    expect(reading.image_feature).toBe(true);
    expect(reading.card_image_feature).toBe(true);
    expect(reading.card_rows).toBe(stored.length);
    expect(reading.features).toMatchObject({ media_id: expect.stringMatching(/Value\('string'/), width: expect.stringMatching(/Value\('int32'/) });
    const rows = new Map(reading.rows.map((row) => [row.media_id, row]));
    expect([...rows.keys()].sort()).toEqual(stored.map((m) => m.id).sort());
    for (const media of stored) {
      const row = rows.get(media.id)!;
      expect(row.image).toEqual({ width: media.width, height: media.height, mode: 'RGB' });
      expect(row.labels.map((label) => label.label)).toEqual(media.allLabels);
      expect(row.objects.map((o) => o.label).sort()).toEqual(media.objects.map((o) => o.label).sort());
    }
  });

  it('fails a YOLO export, naming both files, when two images differ only in their extension (they would share a label file)', async () => {
    const png = path.join(scratch, 'chelsea.png');
    await sharp(photo('chelsea')).png().toFile(png);
    const clashing = await createReadyDataset(stack, 'clash', [photo('chelsea'), png]);
    const { id } = (await stack.request.get(`/api/v1/dataset/${clashing}/export_context_async`).query({ file_name: 'clash', export_format: 'yolo' }).expect(200)).body;
    const status = await exportFinished(stack, clashing, id);
    expect(status).toMatchObject({ status: 'FAILED', download_uri: null });
    expect(status.error_message).toMatch(/YOLO keeps one label file per file name without its extension: chelsea\.(jpg|png) and chelsea\.(jpg|png) would share labels\/chelsea\.txt/);
    // The other formats take the same dataset.
    await exportWholeDataset(stack, clashing, { file_name: 'clash', export_format: 'hf' });
  });

  it('keeps its 422 for a format it does not know and starts nothing', async () => {
    const before = await stack.deps.db('tasks').where({ dataset_id: datasetId, task_type: 'EXPORT' }).count({ n: '*' }).first();
    const response = await stack.request.get(`/api/v1/dataset/${datasetId}/export_context_async`).query({ file_name: 'x', export_format: 'voc' }).expect(422);
    expect(response.body).toEqual({ detail: 'query.export_format: export_format must be one of json, parquet, coco, yolo, hf, imagefolder' });
    expect(await stack.deps.db('tasks').where({ dataset_id: datasetId, task_type: 'EXPORT' }).count({ n: '*' }).first()).toEqual(before);
  });
});
