import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { createDb, type Db } from '../../db/connection';
import { startApiProcess, type ApiProcess } from '../support/apiProcess';
import { datasetFootprint, uploadTargets, type UploadTarget } from '../support/hostileTargets';
import { eventually } from '../support/media';
import { multipartBody, rawRequest, sendRaw, type MultipartPart, type RawResponse } from '../support/rawHttp';
import { createTestDatabase } from '../support/testStack';

/** Characters that break parsers: quotes, separators, escapes, percent signs, NUL and other controls, non-ASCII. */
const nasty = fc.string({
  unit: fc.oneof(
    fc.constantFrom('"', "'", ';', '=', '&', '%', '\\', '/', '\r', '\n', '\u0000', '\u0001', '*', '[', ']', '{', '}', ':', ',', '.', '..', '%00', '%zz', '%C0%80', '\u00e9', '\u{1F600}', '\uD800'),
    fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 24,
});

const part: fc.Arbitrary<MultipartPart> = fc.record(
  {
    name: fc.oneof(fc.constantFrom('files', 'archive', 'file', 'name', 's3_uri', 'auto_reindex'), nasty),
    filename: fc.oneof(fc.constantFrom('a.jpg', 'b.zip', 'c.csv', 'd.mp4'), nasty),
    filenameStar: fc.oneof(fc.constantFrom("UTF-8''a%00.jpg", "UTF-8''%FF%FE.png", "ISO-8859-1''x.jpg", "bogus''"), nasty),
    content: fc.oneof(fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.from(bytes)), nasty),
  },
  { requiredKeys: ['name', 'content'] },
);

/** A multipart request that can never be valid: cut before its closing boundary, or its Content-Type wrong or without the boundary. */
const brokenMultipart = fc
  .record({
    boundary: fc.stringMatching(/^[A-Za-z0-9'()+_,./:=?-]{1,40}$/),
    parts: fc.array(part, { maxLength: 4 }),
    cut: fc.double({ min: 0, max: 0.999, noNaN: true }),
    contentType: fc.constantFrom('cut', 'no boundary', 'other boundary', 'quoted other boundary', 'not multipart', 'garbage'),
    garbage: nasty,
  })
  .map(({ boundary, parts, cut, contentType, garbage }) => {
    const whole = multipartBody(boundary, parts);
    const closing = Buffer.byteLength(`--${boundary}--\r\n`);
    const body = contentType === 'cut' ? whole.subarray(0, Math.floor(cut * (whole.length - closing + 1))) : whole;
    const type = {
      cut: `multipart/form-data; boundary=${boundary}`,
      'no boundary': 'multipart/form-data',
      'other boundary': `multipart/form-data; boundary=x${boundary}`,
      'quoted other boundary': `multipart/form-data; boundary="${boundary}y"`,
      'not multipart': 'text/plain',
      garbage: `multipart/form-data; ${garbage}`,
    }[contentType];
    return { body, headers: [['Content-Type', type]] as Array<[string, string]> };
  });

/** A JSON body that can never be valid: a JSON text cut short, or arbitrary bytes, under a JSON (or odd) Content-Type. */
const brokenJson = fc
  .record({
    text: fc.json(),
    cut: fc.double({ min: 0, max: 0.999, noNaN: true }),
    bytes: fc.uint8Array({ maxLength: 512 }),
    useBytes: fc.boolean(),
    contentType: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-16',
      'application/json; charset=bogus',
      'application/vnd.api+json',
      'application/x-www-form-urlencoded',
    ),
    encoding: fc.option(fc.constantFrom('gzip', 'deflate', 'br', 'bogus', 'identity'), { nil: undefined }),
  })
  .map(({ text, cut, bytes, useBytes, contentType, encoding }) => {
    const body = useBytes ? Buffer.from(bytes) : Buffer.from(text.slice(0, Math.floor(cut * text.length)));
    const headers: Array<[string, string]> = [['Content-Type', contentType]];
    if (encoding) headers.push(['Content-Encoding', encoding]);
    return { body, headers };
  });

/** Percent-encoding of any string; a lone surrogate (which encodeURIComponent refuses) goes as U+FFFD, as UTF-8 clients send it. */
const encodeQueryPart = (text: string) => encodeURIComponent(Buffer.from(text).toString());

/** Query strings as a client could type them: known parameter names or not, values full of escapes and JSON fragments. */
const query = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom('entity_type', 'threshold', 'vql', 'labels', 'tags', 'caption', 'page', 'page_size', 'sort_by', 'sort_order'),
        fc.constantFrom('start_time_from', 'start_time_to', 'dataset_id', 'limit', 'offset', 'anchor_media_id', 'anchor_type', 'unread_only'),
        nasty,
      ),
      fc.oneof(nasty, fc.json().map((json) => encodeURIComponent(json)), fc.constantFrom('IMAGES', '0', '-1', '1e309', '[{"__proto__":{}}]', '[{"text":{"op":"fts","value":"\\u0000"}}]')),
      fc.boolean(),
    ),
    { maxLength: 6 },
  )
  .map((pairs) =>
    pairs
      // Raw pairs keep their escapes as typed; encoded ones survive any character.
      .map(([key, value, raw]) => (raw ? `${key}=${value}` : `${encodeQueryPart(key)}=${encodeQueryPart(value)}`))
      .join('&'),
  );

/** Headers a client may send on any route: odd values for the ones the server reads, and arbitrary others. */
const headers = fc.array(
  fc.oneof(
    fc.tuple(fc.constantFrom('Content-Type', 'Accept', 'Accept-Encoding', 'X-Request-Id', 'X-Forwarded-For', 'X-Forwarded-Host', 'Cookie', 'Range', 'If-None-Match', 'Expect'), nasty),
    fc.tuple(fc.stringMatching(/^[A-Za-z0-9-]{1,20}$/), nasty),
  ),
  { maxLength: 5 },
);

describe('fuzzed requests against the API process', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-fuzz-'));
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let api: ApiProcess;
  let db: Db;
  let datasetIds: string[];
  let targets: UploadTarget[];
  let before: Record<string, unknown>;

  beforeAll(async () => {
    database = await createTestDatabase();
    api = await startApiProcess({
      DATABASE_URL: database.url,
      DATABASE_POOL_MAX: '3',
      DATA_DIR: dataDir,
      TASK_QUEUE: `test-${path.basename(database.url)}`,
      UPLOAD_IDLE_TIMEOUT_SECONDS: '5',
    });
    db = createDb(database.url, 2);
    ({ datasetIds, targets } = await uploadTargets(api.url, db));
    before = await datasetFootprint(db, datasetIds);
  });
  afterAll(async () => {
    await api?.stop();
    await db?.destroy();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const readyId = () => datasetIds[1];
  /** No 5xx, and every refusal is JSON `{"detail": ...}`. */
  const expectAnswered = (response: RawResponse, { refused }: { refused: boolean }) => {
    const summary = { status: response.status, body: response.body.slice(0, 300) };
    expect(summary.status).toBeGreaterThanOrEqual(refused ? 400 : 200);
    expect(summary.status).toBeLessThan(500);
    if (response.status >= 400) expect(JSON.parse(response.body)).toEqual({ detail: expect.any(String) });
  };

  it('answers malformed multipart bodies on every upload route with a 4xx {detail}', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...targets), brokenMultipart, headers, async (target, request, extra) => {
        expectAnswered(await sendRaw(api.url, rawRequest('POST', target.path, [...extra, ...request.headers], request.body)), { refused: true });
      }),
      { numRuns: 300 },
    );
  }, 60_000);

  it('answers malformed JSON bodies with a 4xx {detail}', async () => {
    const jsonRoutes = () => [`/api/v1/auth/login`, `/api/v1/dataset/${readyId()}/views/${randomUUID()}/alerting`];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...jsonRoutes()), brokenJson, headers, async (target, request, extra) => {
        const response = await sendRaw(api.url, rawRequest('POST', target, [...extra, ...request.headers], request.body));
        expectAnswered(response, { refused: true });
      }),
      { numRuns: 200 },
    );
  }, 60_000);

  it('answers any query string and headers on the read routes without a 5xx', async () => {
    const readRoutes = () => [
      '/api/v1/tasks',
      '/api/v1/tasks/filters',
      `/api/v1/explore/${readyId()}`,
      `/api/v1/dataset/${readyId()}`,
      `/api/v1/dataset/${readyId()}/views`,
      '/api/v1/datasets',
      '/api/v1/notifications',
      '/api/v1/notifications/unread-count',
      '/api/v1/api_credentials/keys',
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...readRoutes()), query, headers, async (route, search, extra) => {
        expectAnswered(await sendRaw(api.url, rawRequest('GET', `${route}?${search}`, extra)), { refused: false });
      }),
      { numRuns: 300 },
    );
  }, 60_000);

  it('is still up, logged no unhandled error, and left the datasets and the staging folder as they were', async () => {
    expect(api.alive()).toBe(true);
    const health = await fetch(`${api.url}/api/v1/datasets`);
    expect(health.status).toBe(200);
    expect(api.logs().filter((entry) => entry.msg === 'unhandled error')).toEqual([]);
    expect(await datasetFootprint(db, datasetIds)).toEqual(before);
    const staging = path.join(dataDir, 'tmp', 'uploads');
    await eventually(async () => (fs.existsSync(staging) ? fs.readdirSync(staging) : []), (files) => files.length === 0, 10_000, 'staging emptied');
  }, 30_000);
});
