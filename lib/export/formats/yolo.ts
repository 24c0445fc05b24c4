import path from 'node:path';
import type { Writable } from 'node:stream';
import { Categories, isAnnotatableImage, trainingBoxes } from '../boxes';
import type { ExportRecord } from '../exportRecord';
import { end, send } from '../streams';
import { splitOf, Splits } from '../userClasses';
import { UnexportableError, type MetadataContext, type MetadataWriter } from '../writer';
import { toYaml } from '../yamlText';
import { defineExportFormat } from './defineExportFormat';

const clamp = (value: number) => Math.min(1, Math.max(0, value));

/** data.yaml keys Ultralytics reads as split folders; no other split name becomes a key (a key such as `download` would run). */
const YAML_SPLITS = ['train', 'val', 'test'] as const;

/**
 * Where an image goes: `images/[<split>/]<name>`, its folders joined by `__` into one file name, since
 * YOLO readers list one folder per split (supervision does not descend into subfolders).
 */
function yoloImagePath(record: ExportRecord, split: string | null): string {
  return `images/${split === null ? '' : `${split}/`}${record.image_filename.replaceAll('/', '__')}`;
}

/** The label file of an image: its path with labels/ for images/ and .txt for its extension, as YOLO readers look it up. */
export function yoloLabelPath(imagePath: string): string {
  const extension = path.posix.extname(imagePath);
  return `labels/${imagePath.slice('images/'.length, imagePath.length - extension.length)}.txt`;
}

/**
 * The YOLO detection layout (Ultralytics, Roboflow supervision): images/ holds every item, labels/
 * one text file per decodable image or video frame — a line `class x_center y_center width height`
 * (fractions of the image) per box, empty when it has none — and data.yaml the class names by id.
 * With the user's classes (a declared label field) the classes are those (ids from 0 in class order)
 * and each image's class is a box over the whole image (`c 0.5 0.5 1 1`); without, the labels (ids by
 * first appearance) as whole-image boxes and detected objects with their boxes. With a split field,
 * images/<split>/ and labels/<split>/ per split, and data.yaml's train/val/test name theirs (val is
 * train's when there is none, as Ultralytics needs one); without, images/ is both train and val.
 */
function yoloWriter(out: Writable, context: MetadataContext): MetadataWriter {
  const { classes } = context;
  const categories = new Categories(0, classes?.names);
  const splits = new Splits();
  // Label paths so far, compared as a case-insensitive file system does: two images differing only
  // in their extension (a.jpg, a.png) would share one label file.
  const labelPaths = new Map<string, string>();
  const splitOfRecord = (record: ExportRecord) => (classes ? splitOf(record, classes) : null);
  return {
    imageEntry: (record) => yoloImagePath(record, splitOfRecord(record)),
    async write(records) {
      for (const record of records) {
        if (!isAnnotatableImage(record)) continue;
        const split = splitOfRecord(record);
        if (split !== null) splits.add(split);
        const labelPath = yoloLabelPath(yoloImagePath(record, split));
        const other = labelPaths.get(labelPath.toLowerCase());
        if (other !== undefined) {
          throw new UnexportableError(
            `YOLO keeps one label file per file name without its extension: ${other} and ${record.image_filename} would share ${labelPath}; rename one, or export as coco`,
          );
        }
        labelPaths.set(labelPath.toLowerCase(), record.image_filename);
        const lines = trainingBoxes(record, classes).map(({ label, box }) => {
          // Cut to the image first: a box reaching past an edge keeps the part inside.
          const [left, top] = [clamp(box.x), clamp(box.y)];
          const [right, bottom] = [clamp(box.x + box.width), clamp(box.y + box.height)];
          const values = [(left + right) / 2, (top + bottom) / 2, right - left, bottom - top].map((value) => value.toFixed(6));
          return `${categories.idOf(label)} ${values.join(' ')}\n`;
        });
        await context.addEntry(labelPath, Buffer.from(lines.join(''), 'utf8'));
      }
    },
    async finish() {
      // No user text in comments: names and classes go through the YAML serializer only.
      const header = '# YOLO detection dataset. Labels of whole images are boxes over the whole image (0.5 0.5 1 1); detected objects keep their boxes.\n';
      const names = categories.entries().map(([name]) => name);
      await send(out, header + toYaml({ ...splitFolders(classes?.splitField ? splits.list() : null), nc: names.length, names }));
      await end(out);
    },
    abort: () => undefined,
  };
}

/** data.yaml's train, val and test: the folders of those splits, or images/ for both train and val without splits. */
function splitFolders(splits: string[] | null): Record<string, string> {
  if (splits === null) return { train: 'images', val: 'images' };
  const folders: Record<string, string> = Object.fromEntries(YAML_SPLITS.filter((split) => splits.includes(split)).map((split) => [split, `images/${split}`]));
  folders.train ??= 'images';
  folders.val ??= folders.train;
  return { train: folders.train, val: folders.val, ...(folders.test ? { test: folders.test } : {}) };
}

export const yoloFormat = defineExportFormat({
  name: 'yolo',
  title: 'YOLO',
  description: 'images/, labels/*.txt, data.yaml; always with the images',
  layout: { fileName: 'data.yaml', imagesFolder: 'always', ownEntries: true },
  needsLabelField: false,
  writer: yoloWriter,
});
