import type { Writable } from 'node:stream';
import { end, send } from '../streams';
import type { MetadataWriter } from '../writer';
import { defineExportFormat } from './defineExportFormat';

/** metadata.json: one JSON array, one record per line. */
function jsonWriter(out: Writable): MetadataWriter {
  let first = true;
  return {
    async write(records) {
      if (records.length === 0) return;
      const text = records.map((record) => JSON.stringify(record)).join(',\n');
      await send(out, `${first ? '[\n' : ',\n'}${text}`);
      first = false;
    },
    async finish() {
      await send(out, first ? '[]\n' : '\n]\n');
      await end(out);
    },
    abort: () => undefined,
  };
}

export const jsonFormat = defineExportFormat({
  name: 'json',
  title: 'JSON',
  description: 'metadata.json',
  layout: { fileName: 'metadata.json', imagesFolder: 'asked', ownEntries: false },
  needsLabelField: false,
  writer: jsonWriter,
});
