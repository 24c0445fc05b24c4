import path from 'node:path';
import type { Writable } from 'node:stream';
import { boxesOf, Categories, isAnnotatableImage } from './boxes';
import { FORMAT_LAYOUTS } from './exportRecord';
import type { MetadataContext, MetadataWriter } from './metadataWriters';
import { end, send } from './streams';
import { toYaml } from './yamlText';

/** An archive the format cannot hold as asked; the export fails with this message (retrying cannot help). */
export class UnexportableError extends Error {}

const clamp = (value: number) => Math.min(1, Math.max(0, value));

/** The label file of an image: its name under labels/ with .txt for its extension, as YOLO readers look it up. */
export function yoloLabelPath(imageFilename: string): string {
  const extension = path.posix.extname(path.posix.basename(imageFilename));
  return `labels/${imageFilename.slice(0, imageFilename.length - extension.length)}.txt`;
}

/**
 * The YOLO detection layout (Ultralytics, Roboflow supervision): images/ holds every item, labels/
 * one text file per decodable image or video frame — a line `class x_center y_center width height`
 * (fractions of the image) per box, empty when it has none — and data.yaml the class names by id
 * (ids by first appearance, from 0) with images/ as both train and val. A label of a whole image is
 * a box over the whole image (`c 0.5 0.5 1 1`), as in the COCO export; detected objects keep their boxes.
 */
export function yoloWriter(out: Writable, context: MetadataContext): MetadataWriter {
  const categories = new Categories(0);
  // Label paths so far, compared as a case-insensitive file system does: two images differing only
  // in their extension (a.jpg, a.png) would share one label file.
  const labelPaths = new Map<string, string>();
  return {
    fileName: FORMAT_LAYOUTS.yolo.fileName,
    async write(records) {
      for (const record of records) {
        if (!isAnnotatableImage(record)) continue;
        const labelPath = yoloLabelPath(record.image_filename);
        const other = labelPaths.get(labelPath.toLowerCase());
        if (other !== undefined) {
          throw new UnexportableError(
            `YOLO keeps one label file per file name without its extension: ${other} and ${record.image_filename} would share ${labelPath}; rename one, or export as coco`,
          );
        }
        labelPaths.set(labelPath.toLowerCase(), record.image_filename);
        const lines = boxesOf(record).map(({ label, box }) => {
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
      await send(out, header + toYaml({ train: 'images', val: 'images', nc: names.length, names }));
      await end(out);
    },
    abort: () => undefined,
  };
}
