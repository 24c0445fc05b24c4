import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createLocalObjectStore, STALE_PARTIAL_MS } from '../../lib/storage/localObjectStore';
import { eventually } from '../support/media';

describe('the local object store\'s partial writes', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'local-store-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const partials = () => fs.readdirSync(path.join(root, '.partial'));

  it('are renamed into place, and a failed write leaves neither a partial file nor an object', async () => {
    const store = createLocalObjectStore(root);
    await store.put('blobs/aa/one', Buffer.from('one'));
    expect(await store.putStream('exports/x.zip', Readable.from([Buffer.from('zip')]))).toBe(3);
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1024));
        this.destroy(new Error('the source failed'));
      },
    });
    await expect(store.putStream('exports/y.zip', failing)).rejects.toThrow('the source failed');
    expect((await store.get('blobs/aa/one')).toString()).toBe('one');
    expect(await store.exists('exports/y.zip')).toBe(false);
    expect(partials()).toEqual([]);
  });

  it('left by a killed writer are removed when a store next opens the folder, once older than any live write', async () => {
    createLocalObjectStore(root);
    const stale = path.join(root, '.partial', 'killed.tmp');
    const live = path.join(root, '.partial', 'writing.tmp');
    fs.writeFileSync(stale, 'half');
    fs.writeFileSync(live, 'half');
    const longAgo = (Date.now() - STALE_PARTIAL_MS - 60_000) / 1000;
    fs.utimesSync(stale, longAgo, longAgo);
    createLocalObjectStore(root);
    expect(await eventually(async () => partials(), (names) => names.length === 1, 5000, 'the stale partial removed')).toEqual(['writing.tmp']);
  });

  it('are out of reach of keys', async () => {
    const store = createLocalObjectStore(root);
    fs.writeFileSync(path.join(root, '.partial', 'writing.tmp'), 'half');
    await store.put('model-inputs/a', Buffer.from('a'));
    await expect(store.get('.partial/writing.tmp')).rejects.toThrow(/partial writes/);
    await expect(store.put('.partial/x', Buffer.from('x'))).rejects.toThrow(/partial writes/);
    const listed: string[] = [];
    for await (const key of store.list('model-inputs/')) listed.push(key);
    expect(listed).toEqual(['model-inputs/a']);
  });
});
