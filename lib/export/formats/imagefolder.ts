import type { Writable } from 'node:stream';
import { isAnnotatableImage } from '../boxes';
import type { ExportRecord } from '../exportRecord';
import { end, send } from '../streams';
import { classOf, splitOf } from '../userClasses';
import { UnexportableError, type MetadataContext, type MetadataWriter } from '../writer';
import { defineExportFormat } from './defineExportFormat';

/** A class name that is one folder name on every file system: no separators, controls or dot names; at most 255 bytes. */
function isFolderName(name: string): boolean {
  return !/[/\\\u0000-\u001f\u007f]/.test(name) && name !== '.' && name !== '..' && Buffer.byteLength(name) <= 255;
}

/** Refuses classes that cannot be folders, or would share one on a case-insensitive file system. */
function checkFolderNames(names: string[]): true {
  const folders = new Map<string, string>();
  for (const name of names) {
    if (!isFolderName(name)) throw new UnexportableError(`class ${JSON.stringify(name)} cannot be a folder name (a / or \\, a control character, . or .., or over 255 bytes): rename it, or export as hf`);
    const other = folders.get(name.toLowerCase());
    if (other !== undefined) throw new UnexportableError(`classes ${JSON.stringify(other)} and ${JSON.stringify(name)} differ only in case and would share a folder: rename one`);
    folders.set(name.toLowerCase(), name);
  }
  return true;
}

/**
 * The class-folder layout torchvision's ImageFolder and `datasets`' imagefolder read:
 * `<class>/<image_filename>` per image with a class, under `<split>/` when the version declares a
 * split field. Only images and video frames with a class go in: unlabelled images and videos are
 * left out (a folder for them would read as one more class) and counted in classes.json, which holds
 * the label field, the classes in class order (ImageFolder's indices) and the images per split and class.
 */
function imageFolderWriter(out: Writable, context: MetadataContext): MetadataWriter {
  // Checked once, in write or finish, so the export fails with the message (exports asks for a label field before it starts).
  const { classes: declared } = context;
  const classes = declared ?? { labelField: '', splitField: null, names: [] };
  let checked: true | undefined;
  const check = (): true => {
    if (!declared) throw new UnexportableError('imagefolder exports the classes of the label field: declare one first (PUT /api/v1/dataset/{dataset_id}/label_fields)');
    return checkFolderNames(classes.names);
  };
  const counts = new Map<string, Map<string, number>>();
  const leftOut = { unlabelled: 0, videos_and_undecodable: 0 };
  const folderOf = (record: ExportRecord): string | null => {
    const label = classOf(record, classes);
    if (label === null || !isAnnotatableImage(record)) return null;
    const split = splitOf(record, classes);
    return split === null ? label : `${split}/${label}`;
  };
  return {
    imageEntry(record) {
      const folder = folderOf(record);
      return folder === null ? null : `${folder}/${record.image_filename}`;
    },
    async write(records) {
      checked ??= check();
      for (const record of records) {
        if (!isAnnotatableImage(record)) leftOut.videos_and_undecodable++;
        else if (classOf(record, classes) === null) leftOut.unlabelled++;
        else {
          const split = splitOf(record, classes) ?? 'all';
          const label = classOf(record, classes)!;
          if (!counts.has(split)) counts.set(split, new Map());
          counts.get(split)!.set(label, (counts.get(split)!.get(label) ?? 0) + 1);
        }
      }
    },
    async finish() {
      checked ??= check();
      const images = Object.fromEntries([...counts].map(([split, byClass]) => [split, Object.fromEntries(classes.names.filter((name) => byClass.has(name)).map((name) => [name, byClass.get(name)]))]));
      const summary = { label_field: classes.labelField, split_field: classes.splitField, classes: classes.names, images, left_out: leftOut };
      await send(out, `${JSON.stringify(summary, null, 2)}\n`);
      await end(out);
    },
    abort: () => undefined,
  };
}

export const imageFolderFormat = defineExportFormat({
  name: 'imagefolder',
  title: 'ImageFolder',
  description: '<split>/<class>/<file> class folders and classes.json; needs a label field',
  layout: { fileName: 'classes.json', imagesFolder: 'always', ownEntries: false },
  needsLabelField: true,
  writer: imageFolderWriter,
});
