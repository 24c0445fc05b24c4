import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { archiveEntries, type ArchiveLimits } from '../../lib/sources/archive';
import { localEntries } from '../../lib/sources/localPath';
import { parseManifest } from '../../lib/sources/manifest';
import { parseS3Uri } from '../../lib/sources/s3';
import { MediaSourceError, MissingEntryError } from '../../lib/sources/sourceEntry';
import { makeTarGz, makeZip } from '../support/archives';

const roomy: ArchiveLimits = {
  maxEntries: 100,
  maxEntryBytes: 10 * 1024 * 1024,
  maxTotalBytes: 50 * 1024 * 1024,
  maxRatio: 1e9,
  ratioFloorBytes: 0,
};

async function readAll(entries: AsyncGenerator<{ name: string; open(): Promise<NodeJS.ReadableStream> }>) {
  const files: Record<string, string> = {};
  for await (const entry of entries) {
    const chunks: Buffer[] = [];
    for await (const chunk of await entry.open()) chunks.push(Buffer.from(chunk as Buffer));
    files[entry.name] = Buffer.concat(chunks).toString();
  }
  return files;
}

describe('media sources', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sources-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('reads nested zip and tar.gz entries by their relative paths, skipping folders and resource forks', async () => {
    const entries = { 'a/b/one.jpg': Buffer.from('1'), './two.png': Buffer.from('22'), '__MACOSX/a/._one.jpg': Buffer.from('x') };
    const zip = makeZip(path.join(dir, 'n.zip'), entries, { deflate: true });
    expect(await readAll(archiveEntries(zip, 'n.zip', roomy))).toEqual({ 'a/b/one.jpg': '1', 'two.png': '22' });
    const tgz = await makeTarGz(path.join(dir, 'n.tar.gz'), entries);
    expect(await readAll(archiveEntries(tgz, 'n.tar.gz', roomy))).toEqual({ 'a/b/one.jpg': '1', 'two.png': '22' });
  });

  it('refuses paths that leave the archive, in zip and tar alike', async () => {
    const zip = makeZip(path.join(dir, 'evil.zip'), { '../../etc/passwd.jpg': Buffer.from('x') });
    await expect(readAll(archiveEntries(zip, 'evil.zip', roomy))).rejects.toThrow(MediaSourceError);
    const tgz = await makeTarGz(path.join(dir, 'evil.tar.gz'), { 'a/../../escape.jpg': Buffer.from('x') });
    await expect(readAll(archiveEntries(tgz, 'evil.tar.gz', roomy))).rejects.toThrow('unsafe path in archive: a/../../escape.jpg');
  });

  it('stops zip bombs: too many entries, an entry or a whole archive expanding past the limits, or lying sizes', async () => {
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const bomb = makeZip(path.join(dir, 'bomb.zip'), { 'a.jpg': zeros, 'b.jpg': zeros, 'c.jpg': zeros }, { deflate: true });
    expect(fs.statSync(bomb).size).toBeLessThan(64 * 1024);
    await expect(readAll(archiveEntries(bomb, 'bomb.zip', { ...roomy, maxTotalBytes: 10 * 1024 * 1024 }))).rejects.toThrow(
      'archive expands to more than 10485760 bytes',
    );
    await expect(readAll(archiveEntries(bomb, 'bomb.zip', { ...roomy, maxEntryBytes: 1024 * 1024 }))).rejects.toThrow(
      'archive entry a.jpg expands to more than 1048576 bytes',
    );
    await expect(readAll(archiveEntries(bomb, 'bomb.zip', { ...roomy, maxEntries: 2 }))).rejects.toThrow('archive has more than 2 entries');
    // An entry declaring 10 bytes that inflates to 4 MiB is caught while it is read.
    const liar = makeZip(path.join(dir, 'liar.zip'), { 'a.jpg': zeros }, { deflate: true, declaredSize: 10 });
    await expect(readAll(archiveEntries(liar, 'liar.zip', roomy))).rejects.toThrow(/too many bytes|size/);
    const tgz = await makeTarGz(path.join(dir, 'bomb.tar.gz'), { 'a.jpg': zeros, 'b.jpg': zeros, 'c.jpg': zeros });
    await expect(readAll(archiveEntries(tgz, 'bomb.tar.gz', { ...roomy, maxTotalBytes: 10 * 1024 * 1024 }))).rejects.toThrow(MediaSourceError);
  });

  it('bounds expansion by the compressed size: per zip entry, per tar.gz archive, with a floor for small entries', async () => {
    const zeros = Buffer.alloc(4 * 1024 * 1024);
    const ratioed: ArchiveLimits = { ...roomy, maxRatio: 100, ratioFloorBytes: 1024 * 1024 };
    const zip = makeZip(path.join(dir, 'ratio.zip'), { 'ok.jpg': Buffer.from('tiny'), 'bomb.jpg': zeros }, { deflate: true });
    await expect(readAll(archiveEntries(zip, 'ratio.zip', ratioed))).rejects.toThrow('archive entry bomb.jpg expands more than 100 times its compressed size');
    // The same bytes stored (not deflated) are no bomb.
    const stored = makeZip(path.join(dir, 'stored.zip'), { 'big.jpg': zeros });
    expect(Object.keys(await readAll(archiveEntries(stored, 'stored.zip', ratioed)))).toEqual(['big.jpg']);
    const tgz = await makeTarGz(path.join(dir, 'ratio.tar.gz'), { 'a.jpg': zeros });
    await expect(readAll(archiveEntries(tgz, 'ratio.tar.gz', ratioed))).rejects.toThrow('expands more than 100 times');
    // Under the floor any ratio passes: a small, very compressible entry is fine.
    const small = makeZip(path.join(dir, 'small.zip'), { 'flat.png': Buffer.alloc(512 * 1024) }, { deflate: true });
    expect(Object.keys(await readAll(archiveEntries(small, 'small.zip', ratioed)))).toEqual(['flat.png']);
  });

  it('refuses a file that is no archive', async () => {
    const fake = path.join(dir, 'fake.zip');
    fs.writeFileSync(fake, 'hello');
    await expect(readAll(archiveEntries(fake, 'fake.zip', roomy))).rejects.toThrow('fake.zip is not a .zip, .tar or .tar.gz archive');
  });

  it('parses .txt, .csv and .parquet manifests', async () => {
    expect(await parseManifest(Buffer.from('# media\na.jpg\n\n s3://b/k/c.png \n'), 'txt')).toEqual(['a.jpg', 's3://b/k/c.png']);
    expect(await parseManifest(Buffer.from('label,uri\ncat,x/a.jpg\ndog,b.mp4\n'), 'csv')).toEqual(['x/a.jpg', 'b.mp4']);
    expect(await parseManifest(Buffer.from('name\nq.jpg\n'), 'csv')).toEqual(['q.jpg']);
    await expect(parseManifest(Buffer.from('not parquet'), 'parquet')).rejects.toThrow(MediaSourceError);
  });

  it('parses s3 URIs', () => {
    expect(parseS3Uri('s3://my-bucket/a/b/')).toEqual({ bucket: 'my-bucket', key: 'a/b/' });
    expect(parseS3Uri('s3://my-bucket')).toEqual({ bucket: 'my-bucket', key: '' });
    for (const bad of ['http://x/y', 's3://', 's3://A_B/c', 'bucket/key']) expect(parseS3Uri(bad)).toBeUndefined();
  });

  it('walks a local folder, a local manifest (a missing entry reported when opened) and refuses relative paths', async () => {
    const root = path.join(dir, 'local');
    fs.mkdirSync(path.join(root, 'deep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'a.jpg'), 'a');
    fs.writeFileSync(path.join(root, 'deep', 'b.jpg'), 'b');
    fs.writeFileSync(path.join(root, '.hidden.jpg'), 'h');
    expect(await readAll(localEntries(root, roomy))).toEqual({ 'a.jpg': 'a', 'deep/b.jpg': 'b' });
    const manifest = path.join(dir, 'list.txt');
    fs.writeFileSync(manifest, `local/a.jpg\n${path.join(root, 'deep', 'b.jpg')}\nlocal/gone.jpg\n`);
    const names: string[] = [];
    for await (const entry of localEntries(manifest, roomy)) {
      names.push(entry.name);
      if (entry.name.endsWith('gone.jpg')) await expect(entry.open()).rejects.toThrow(MissingEntryError);
    }
    expect(names).toEqual(['local/a.jpg', path.join(root, 'deep', 'b.jpg'), 'local/gone.jpg']);
    await expect(readAll(localEntries('relative/dir', roomy))).rejects.toThrow('path must be absolute: relative/dir');
  });
});
