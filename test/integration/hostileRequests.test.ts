import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createDb, type Db } from '../../db/connection';
import { startApiProcess, type ApiProcess } from '../support/apiProcess';
import { datasetFootprint, uploadTargets, type UploadTarget } from '../support/hostileTargets';
import { eventually } from '../support/media';
import { multipartBody, rawRequest, sendRaw, type MultipartPart, type RawResponse } from '../support/rawHttp';
import { createTestDatabase } from '../support/testStack';

const BOUNDARY = 'hostile-boundary';
const multipart = [['Content-Type', `multipart/form-data; boundary=${BOUNDARY}`]] as Array<[string, string]>;
const DAY_MS = 24 * 3600_000;

/** The part a route reads: its file part, or a text field for the views form. */
const partFor = (target: UploadTarget, content: Buffer | string, fileName = target.fileName): MultipartPart =>
  fileName ? { name: target.fileField, filename: fileName, content } : { name: target.fileField, content };

describe('the API process against truncated, malformed and abandoned requests', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-hostile-'));
  const staging = path.join(dataDir, 'tmp', 'uploads');
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let api: ApiProcess;
  let db: Db;
  let datasetIds: string[];
  let readyId: string;
  let targets: UploadTarget[];
  let before: Record<string, unknown>;

  const stagedFiles = () => (fs.existsSync(staging) ? fs.readdirSync(staging) : []);
  const post = (target: string, headers: Array<[string, string]>, body: Buffer | string) =>
    sendRaw(api.url, rawRequest('POST', target, headers, body));
  const expectDetail = (response: RawResponse, status: number, detail: string | RegExp) => {
    expect({ status: response.status, type: response.headers['content-type'] }).toEqual({ status, type: expect.stringMatching(/^application\/json/) });
    expect((JSON.parse(response.body) as { detail: string }).detail).toEqual(typeof detail === 'string' ? detail : expect.stringMatching(detail));
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    // Leftovers of an earlier process: one older than the bound, one fresh (a worker may be writing it).
    fs.mkdirSync(staging, { recursive: true });
    fs.writeFileSync(path.join(staging, 'old.upload'), 'left behind');
    fs.writeFileSync(path.join(staging, 'fresh.upload'), 'being written');
    const twoDaysAgo = new Date(Date.now() - 2 * DAY_MS);
    fs.utimesSync(path.join(staging, 'old.upload'), twoDaysAgo, twoDaysAgo);
    api = await startApiProcess({
      DATABASE_URL: database.url,
      DATABASE_POOL_MAX: '3',
      DATA_DIR: dataDir,
      TASK_QUEUE: `test-${path.basename(database.url)}`,
      UPLOAD_IDLE_TIMEOUT_SECONDS: '1',
      STAGED_UPLOAD_MAX_AGE_HOURS: '24',
      MAX_FORM_FIELDS: '8',
      MAX_FORM_FIELD_KB: '4',
    });
    db = createDb(database.url, 2);
    ({ datasetIds, targets } = await uploadTargets(api.url, db));
    readyId = datasetIds[1];
    before = await datasetFootprint(db, datasetIds);
  });
  afterEach(() => expect(api.alive()).toBe(true));
  afterAll(async () => {
    await api?.stop();
    await db?.destroy();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('removes staged leftovers older than the bound when it starts, and keeps fresh ones', () => {
    expect(stagedFiles()).toEqual(['fresh.upload']);
    fs.rmSync(path.join(staging, 'fresh.upload'));
  });

  it('answers a body cut before its closing boundary with 422 on every upload route, and stays up', async () => {
    const wrong: unknown[] = [];
    for (const target of targets) {
      for (const fileName of [target.fileName, 'refused.exe']) {
        const body = multipartBody(BOUNDARY, [partFor(target, 'abcdef'.repeat(1000), fileName)], { close: false });
        const { status, body: answer } = await post(target.path, multipart, body);
        if (status < 400 || status >= 500 || !/^\{"detail":/.test(answer)) wrong.push({ route: target.name, fileName, status, answer });
      }
      const cut = multipartBody(BOUNDARY, [partFor(target, 'x'.repeat(3000))], { close: false });
      expectDetail(await post(target.path, multipart, cut), 422, 'Malformed multipart body: Unexpected end of form');
    }
    expect(wrong).toEqual([]);
    expect(api.alive()).toBe(true);
    expect(await datasetFootprint(db, datasetIds)).toEqual(before);
    await eventually(async () => stagedFiles(), (files) => files.length === 0, 10_000, 'staged files removed');
  });

  it('refuses multipart without a boundary, and NUL in a filename* or a field, with 422', async () => {
    for (const target of targets) {
      expectDetail(await post(target.path, [['Content-Type', 'multipart/form-data']], 'whatever'), 422, /^Malformed multipart body: /);
      const nulName = multipartBody(BOUNDARY, [{ name: 'file', filenameStar: "UTF-8''a%00.jpg", content: 'x' }]);
      expectDetail(await post(target.path, multipart, nulName), 422, 'A file part name or file name contains a NUL character');
    }
    const nulField = multipartBody(BOUNDARY, [{ name: 'name', content: 'view\u0000name' }]);
    expectDetail(await post(`/api/v1/dataset/${readyId}/views`, multipart, nulField), 422, 'Form field "name" contains a NUL character');
    expect(await datasetFootprint(db, datasetIds)).toEqual(before);
  });

  it('bounds the number and size of text fields with 413 before keeping them', async () => {
    const views = `/api/v1/dataset/${readyId}/views`;
    const many = multipartBody(BOUNDARY, Array.from({ length: 300 }, (_, i) => ({ name: `f${i}`, content: 'v'.repeat(1000) })));
    expectDetail(await post(views, multipart, many), 413, 'At most 8 form fields per request');
    const long = multipartBody(BOUNDARY, [{ name: 'name', content: 'n'.repeat(5 * 1024) }]);
    expectDetail(await post(views, multipart, long), 413, 'Form field "name" is longer than 4096 bytes');
    const addMedia = `/api/v1/dataset/${readyId}/add_media`;
    expectDetail(await post(addMedia, multipart, multipartBody(BOUNDARY, [{ name: 's3_uri', content: 's'.repeat(5 * 1024) }])), 413, /longer than 4096 bytes/);
    expect(await datasetFootprint(db, datasetIds)).toEqual(before);
  });

  it('answers headers too large for Node with 431 {detail}', async () => {
    const response = await sendRaw(api.url, rawRequest('GET', '/api/v1/datasets', [['X-Padding', 'p'.repeat(64 * 1024)]]));
    expectDetail(response, 431, 'Request header fields too large');
    const garbage = await sendRaw(api.url, Buffer.from('NOT HTTP AT ALL\r\n\r\n'));
    expectDetail(garbage, 400, 'Malformed HTTP request');
  });

  /** Opens an upload of `declared` bytes on a raw socket and sends only its first part: a file part and some of its bytes. */
  function startUpload(target: UploadTarget, declared: number): net.Socket {
    const head = multipartBody(BOUNDARY, [{ name: target.fileField, filename: target.fileName, content: Buffer.alloc(256 * 1024, 7) }], { close: false });
    const request = rawRequest('POST', target.path, [...multipart, ['Content-Length', String(declared)]], head);
    const socket = net.connect(Number(new URL(api.url).port), '127.0.0.1', () => socket.write(request));
    socket.on('error', () => undefined);
    return socket;
  }

  it('removes the staged bytes of an upload whose client goes away', async () => {
    const socket = startUpload(targets[0], 50 * 1024 * 1024);
    await eventually(async () => stagedFiles(), (files) => files.length === 1, 10_000, 'the upload staged');
    socket.destroy();
    await eventually(async () => stagedFiles(), (files) => files.length === 0, 10_000, 'the staged file removed');
    expect(await datasetFootprint(db, datasetIds)).toEqual(before);
  });

  it('answers a stalled upload with 408 after the idle timeout, closes it and removes its staged bytes', async () => {
    const socket = startUpload(targets[1], 50 * 1024 * 1024);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    await new Promise((resolve) => socket.once('close', resolve));
    const answer = Buffer.concat(chunks).toString();
    expect(answer).toMatch(/^HTTP\/1.1 408 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('{"detail":"Upload stalled: no data received for 1 s"}');
    await eventually(async () => stagedFiles(), (files) => files.length === 0, 10_000, 'the staged file removed');
    expect(await datasetFootprint(db, datasetIds)).toEqual(before);
  });
});
