import type { Writable } from 'node:stream';
import type { MetadataContext, MetadataWriter } from '../writer';

/** What an archive of a format holds besides its metadata file. */
export interface FormatLayout {
  /** The metadata file's name in the archive. */
  fileName: string;
  /** The items' bytes (under images/ or where the writer's imageEntry puts them): when include_images asks, always (YOLO, ImageFolder), or never (hf holds them in its Parquet). */
  imagesFolder: 'asked' | 'always' | 'never';
  /** Adds entries of its own while it writes (addEntry), so its metadata file cannot stream straight into the archive. */
  ownEntries: boolean;
}

/**
 * An export format: everything the API, the export and the clients know of it. Each format is one
 * module in lib/export/formats/, listed once in its index.
 */
export interface ExportFormatDefinition<Name extends string = string> {
  /** The export_format value. */
  name: Name;
  /** Its name for people (the web app's choice). */
  title: string;
  /** What its archive holds, in a few words (the API's documentation and GET /export-formats). */
  description: string;
  layout: FormatLayout;
  /** Exports the classes of the version's declared label field: refused before it starts without one. */
  needsLabelField: boolean;
  /** The writer of its metadata file into `out`. */
  writer(out: Writable, context: MetadataContext): MetadataWriter;
}

export function defineExportFormat<const Name extends string>(definition: ExportFormatDefinition<Name>): ExportFormatDefinition<Name> {
  return definition;
}
