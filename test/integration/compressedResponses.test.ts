import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { createDataset } from '../../db/repositories/datasets';
import { Workspace } from '../../db/models';
import { localPublicUrl, serveOverHttp } from '../support/browser';
import { startTestApi, type TestApi } from '../support/testStack';

/** One GET on the real server, its body as sent (not decompressed) and, for a stream, only its first chunk. */
function get(port: number, path: string, headers: http.OutgoingHttpHeaders): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ port, host: '127.0.0.1', path, headers }, (response) => {
      const chunks: Buffer[] = [];
      const done = () => resolve({ status: response.statusCode!, headers: response.headers, body: Buffer.concat(chunks) });
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        if (response.headers['content-type']?.startsWith('text/event-stream')) {
          request.destroy();
          done();
        }
      });
      response.on('end', done);
    });
    request.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
  });
}

describe('responses gzip-compressed for clients that accept it (api/middleware/compressResponses.ts)', () => {
  let api: TestApi;
  let server: { url: string; close(): Promise<void> };
  let port: number;

  beforeAll(async () => {
    api = await startTestApi({ PUBLIC_URL: await localPublicUrl() });
    server = await serveOverHttp(api);
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server.close();
    await api.close();
  });

  it('compresses a large JSON response for a gzip client, to the same JSON, and sends it plain to others', async () => {
    const plain = await get(port, '/api/v1/openapi.json', { 'accept-encoding': 'identity' });
    expect([plain.status, plain.headers['content-encoding']]).toEqual([200, undefined]);
    const compressed = await get(port, '/api/v1/openapi.json', { 'accept-encoding': 'gzip, deflate, br' });
    expect([compressed.status, compressed.headers['content-encoding']]).toEqual([200, 'gzip']);
    expect(compressed.headers.vary).toMatch(/Accept-Encoding/i);
    expect(compressed.body.length * 3).toBeLessThan(plain.body.length);
    expect(JSON.parse(gunzipSync(compressed.body).toString())).toEqual(JSON.parse(plain.body.toString()));
    // A client that names no encoding gets plain JSON.
    expect((await get(port, '/api/v1/openapi.json', {})).headers['content-encoding']).toBeUndefined();
  });

  it('compresses an object body a route sets (a listing), and leaves a small error as it is', async () => {
    const workspaceId = (await Workspace.query(api.deps.db).first())!.id;
    for (let i = 0; i < 20; i++) await createDataset(api.deps.db, { name: `photos ${i}`, ownerId: api.deps.defaultUser.id, workspaceId, status: 'READY' });
    const plain = await get(port, '/api/v1/datasets', { 'accept-encoding': 'identity' });
    expect(plain.body.length).toBeGreaterThan(1024);
    const compressed = await get(port, '/api/v1/datasets', { 'accept-encoding': 'gzip' });
    expect([compressed.status, compressed.headers['content-encoding'], compressed.headers['content-type']]).toEqual([200, 'gzip', expect.stringMatching(/^application\/json/)]);
    expect(JSON.parse(gunzipSync(compressed.body).toString())).toEqual(JSON.parse(plain.body.toString()));
    const missing = await get(port, '/api/v1/datasets/00000000-0000-4000-8000-000000000000', { 'accept-encoding': 'gzip' });
    expect([missing.status, missing.headers['content-encoding']]).toEqual([404, undefined]);
    expect(JSON.parse(missing.body.toString()).detail).toEqual(expect.any(String));
  });

  it('leaves the event stream uncompressed, so each event arrives as written', async () => {
    const stream = await get(port, '/api/v1/notifications/stream', { 'accept-encoding': 'gzip' });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-encoding']).toBeUndefined();
    expect(stream.body.toString()).toMatch(/^: connected/);
  });
});
