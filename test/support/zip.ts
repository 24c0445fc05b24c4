import yauzl from 'yauzl';

/** Every entry of a ZIP held in memory, by name (test archives are small). */
export function readZip(zip: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, archive) => {
      if (error || !archive) return reject(error);
      const entries = new Map<string, Buffer>();
      archive.on('error', reject);
      archive.on('end', () => resolve(entries));
      archive.on('entry', (entry: yauzl.Entry) => {
        archive.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            archive.readEntry();
          });
        });
      });
      archive.readEntry();
    });
  });
}

/** The names of a ZIP's entries stored without compression. */
export function storedEntryNames(zip: Buffer): Promise<Set<string>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, archive) => {
      if (error || !archive) return reject(error);
      const stored = new Set<string>();
      archive.on('error', reject);
      archive.on('end', () => resolve(stored));
      archive.on('entry', (entry: yauzl.Entry) => {
        if (entry.compressionMethod === 0) stored.add(entry.fileName);
        archive.readEntry();
      });
      archive.readEntry();
    });
  });
}
