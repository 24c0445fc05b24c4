import fs from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Categories, isAnnotatableImage, trainingBoxes } from '../boxes';
import { discard, end, send } from '../streams';
import { splitOf, Splits } from '../userClasses';
import type { MetadataContext, MetadataWriter } from '../writer';
import { defineExportFormat } from './defineExportFormat';

/** One COCO document: its images and its annotations each kept in a scratch file as they come, joined when it is read. */
function cocoDocument(scratch: (name: string) => string, key: string) {
  const files = { images: scratch(`coco-${key}.images`), annotations: scratch(`coco-${key}.annotations`) };
  const images = fs.createWriteStream(files.images);
  const annotations = fs.createWriteStream(files.annotations);
  const counts = { images: 0, annotations: 0 };
  const append = async (out: Writable, kind: keyof typeof counts, items: string[]) => {
    if (items.length === 0) return;
    await send(out, `${counts[kind] === 0 ? '\n' : ',\n'}${items.join(',\n')}`);
    counts[kind] += items.length;
  };
  return {
    async add(image: string, annotated: string[]) {
      await append(images, 'images', [image]);
      await append(annotations, 'annotations', annotated);
    },
    async close() {
      await end(images);
      await end(annotations);
    },
    /** The whole document, once closed; every string in it written by JSON.stringify. */
    read(info: object, categories: string[]): Readable {
      return Readable.from(
        (async function* () {
          yield `{"info":${JSON.stringify(info)},\n"licenses":[],\n"images":[`;
          yield* fs.createReadStream(files.images);
          yield '],\n"annotations":[';
          yield* fs.createReadStream(files.annotations);
          yield `],\n"categories":[${categories.length > 0 ? `\n${categories.join(',\n')}` : ''}]}\n`;
        })(),
      );
    },
    destroy() {
      discard(images);
      discard(annotations);
    },
  };
}

/**
 * annotations.json in the COCO detection format (pycocotools, FiftyOne, CVAT, supervision): images are
 * the decodable images and video frames; each box an annotation, in pixels. With the user's classes
 * (a declared label field) the categories are those classes (ids from 1 in class order) and each
 * image's class is an annotation over the whole image (`attributes.image_level`); without, the
 * categories are the labels and detected objects. With a split field, `annotations/instances_<split>.json`
 * holds each split's images and annotations too (the COCO 2017 layout; images stay in images/).
 */
function cocoWriter(out: Writable, context: MetadataContext): MetadataWriter {
  const { classes } = context;
  const categories = new Categories(1, classes?.names);
  const whole = cocoDocument(context.scratchPath, 'all');
  const splits = new Splits();
  const bySplit = new Map<string, ReturnType<typeof cocoDocument>>();
  let imageCount = 0;
  let annotationCount = 0;
  const info = {
    description: `Export of ${context.datasetName}`,
    version: '1.0',
    year: context.exportedAt.getUTCFullYear(),
    contributor: 'media dataset service',
    url: '',
    date_created: context.exportedAt.toISOString(),
  };
  return {
    async write(records) {
      for (const record of records) {
        if (!isAnnotatableImage(record)) continue;
        const { width, height } = record;
        const imageId = ++imageCount;
        const image = JSON.stringify({
          id: imageId,
          file_name: record.image_filename,
          width,
          height,
          media_id: record.media_id,
          ...(record.video_id ? { video_id: record.video_id, frame_index: record.frame_index } : {}),
        });
        const annotated = trainingBoxes(record, classes).map(({ label, box, imageLevel, source, confidence }) => {
          const bbox = [box.x * width, box.y * height, box.width * width, box.height * height];
          return JSON.stringify({
            id: ++annotationCount,
            image_id: imageId,
            category_id: categories.idOf(label),
            bbox,
            area: bbox[2] * bbox[3],
            iscrowd: 0,
            attributes: imageLevel ? { image_level: true, source, confidence } : { image_level: false, confidence },
          });
        });
        await whole.add(image, annotated);
        const split = classes ? splitOf(record, classes) : null;
        if (split === null) continue;
        splits.add(split);
        if (!bySplit.has(split)) bySplit.set(split, cocoDocument(context.scratchPath, `split-${bySplit.size}`));
        await bySplit.get(split)!.add(image, annotated);
      }
    },
    async finish() {
      const list = categories.entries().map(([name, id]) => JSON.stringify({ id, name, supercategory: classes ? classes.labelField : 'label' }));
      await whole.close();
      await pipeline(whole.read(info, list), out);
      for (const split of splits.list()) {
        const document = bySplit.get(split)!;
        await document.close();
        await context.addEntry(`annotations/instances_${split}.json`, document.read(info, list));
      }
    },
    abort() {
      whole.destroy();
      for (const document of bySplit.values()) document.destroy();
    },
  };
}

export const cocoFormat = defineExportFormat({
  name: 'coco',
  title: 'COCO',
  description: 'annotations.json in the COCO detection format; annotations/instances_<split>.json per split',
  layout: { fileName: 'annotations.json', imagesFolder: 'asked', ownEntries: true },
  needsLabelField: false,
  writer: cocoWriter,
});
