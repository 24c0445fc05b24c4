import yauzl from 'yauzl';

/** Visits a ZIP's entries in order, each once `visit` has resolved for the one before. */
function visitEntries(zip: Buffer, visit: (entry: yauzl.Entry, archive: yauzl.ZipFile) => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (error, archive) => {
      if (error || !archive) return reject(error);
      archive.on('error', reject);
      archive.on('end', () => resolve());
      archive.on('entry', (entry: yauzl.Entry) => visit(entry, archive).then(() => archive.readEntry(), reject));
      archive.readEntry();
    });
  });
}

/** Every entry of a ZIP held in memory, by name (test archives are small). */
export async function readZip(zip: Buffer): Promise<Map<string, Buffer>> {
  const entries = new Map<string, Buffer>();
  await visitEntries(
    zip,
    (entry, archive) =>
      new Promise((resolve, reject) => {
        archive.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            resolve();
          });
        });
      }),
  );
  return entries;
}

/** The names of a ZIP's entries stored without compression. */
export async function storedEntryNames(zip: Buffer): Promise<Set<string>> {
  const stored = new Set<string>();
  await visitEntries(zip, async (entry) => {
    if (entry.compressionMethod === 0) stored.add(entry.fileName);
  });
  return stored;
}
