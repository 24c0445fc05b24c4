import { cocoFormat } from './coco';
import type { ExportFormatDefinition } from './defineExportFormat';
import { huggingFaceFormat } from './hf';
import { imageFolderFormat } from './imagefolder';
import { jsonFormat } from './json';
import { parquetFormat } from './parquet';
import { yoloFormat } from './yolo';

export type { ExportFormatDefinition, FormatLayout } from './defineExportFormat';

/**
 * Every export format, one module each (lib/export/formats/<name>.ts), in the order the API's enum
 * and GET /export-formats list them. A new format is its module and its line here.
 */
export const EXPORT_FORMAT_MODULES = [jsonFormat, parquetFormat, cocoFormat, yoloFormat, huggingFaceFormat, imageFolderFormat] as const;

type Formats = typeof EXPORT_FORMAT_MODULES;
export type ExportFormat = Formats[number]['name'];

type NamesOf<T extends readonly { name: string }[]> = { readonly [K in keyof T]: T[K] extends { name: infer Name } ? Name : never };
/** The format names as a tuple (z.enum takes it), in the registry's order. */
export const EXPORT_FORMATS = EXPORT_FORMAT_MODULES.map((format) => format.name) as readonly ExportFormat[] as NamesOf<Formats>;

const BY_NAME = new Map<string, ExportFormatDefinition>(EXPORT_FORMAT_MODULES.map((format) => [format.name, format]));

/** The module of a format. */
export function exportFormatOf(name: ExportFormat): ExportFormatDefinition<ExportFormat> {
  return BY_NAME.get(name) as ExportFormatDefinition<ExportFormat>;
}

/** Whether an export of `format` carries the images' bytes (in images/ or in its metadata file). */
export function carriesImages(format: ExportFormat, includeImages: boolean): boolean {
  return exportFormatOf(format).layout.imagesFolder !== 'asked' || includeImages;
}
