import fs from 'node:fs';
import zlib from 'node:zlib';
import tar from 'tar-stream';

/** Archive entries: name inside the archive → a file on disk or bytes. Names are written as given, unsafe ones too. */
export type ArchiveEntries = Record<string, string | Buffer>;

const bytesOf = (content: string | Buffer) => (typeof content === 'string' ? fs.readFileSync(content) : content);

/**
 * A .zip written byte by byte so tests can make hostile ones: names as given, entries stored or
 * deflated (`deflate`), and optionally lying about their uncompressed size (`declaredSize`).
 */
export function makeZip(target: string, entries: ArchiveEntries, options: { deflate?: boolean; declaredSize?: number } = {}): string {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const plain = bytesOf(content);
    const data = options.deflate ? zlib.deflateRawSync(plain) : plain;
    const size = options.declaredSize ?? plain.length;
    const method = options.deflate ? 8 : 0;
    const fileName = Buffer.from(name, 'utf8');
    const crc = zlib.crc32(plain);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(fileName.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt16LE(method, 10);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(data.length, 20);
    header.writeUInt32LE(size, 24);
    header.writeUInt16LE(fileName.length, 28);
    header.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    central.push(header, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  fs.writeFileSync(target, Buffer.concat([...locals, directory, end]));
  return target;
}

/** A .tar.gz of `entries`. */
export async function makeTarGz(target: string, entries: ArchiveEntries): Promise<string> {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(entries)) pack.entry({ name }, bytesOf(content));
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  fs.writeFileSync(target, zlib.gzipSync(Buffer.concat(chunks)));
  return target;
}
