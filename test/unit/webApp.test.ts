import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import { Router } from '@koa/router';
import request from 'supertest';
import { errorHandler } from '../../api/middleware/errorHandler';
import { serveWebApp } from '../../api/webApp';

/** The middleware order of api/app.ts that matters here: errors, the web app, then the API routes. */
function appServing(root: string): Koa {
  const app = new Koa();
  const api = new Router({ prefix: '/api/v1' });
  api.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  app.use(errorHandler());
  app.use(serveWebApp(root));
  app.use(api.routes()).use(api.allowedMethods());
  return app;
}

describe('serveWebApp', () => {
  let root: string;
  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
    fs.mkdirSync(path.join(root, 'assets'));
    fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><div id="root"></div>');
    fs.writeFileSync(path.join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it('serves index.html at / and for page paths, hashed assets as immutable', async () => {
    const server = appServing(root).callback();
    const page = await request(server).get('/').expect(200);
    expect(page.type).toBe('text/html');
    expect(page.headers['cache-control']).toBe('no-cache');
    expect((await request(server).get('/datasets/some-page').expect(200)).text).toContain('id="root"');
    const asset = await request(server).get('/assets/index-abc123.js').expect(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    await request(server).get('/assets/missing.js').expect(404);
    await request(server).get('/..%2f..%2fetc%2fpasswd').expect(403);
  });

  it('leaves /api to the API: routes answer, unknown paths are JSON 404s', async () => {
    const server = appServing(root).callback();
    expect((await request(server).get('/api/v1/health').expect(200)).body).toEqual({ status: 'ok' });
    expect((await request(server).get('/api/v1/nothing-here').expect(404)).body).toEqual({ detail: 'Not Found' });
    expect((await request(server).get('/api').expect(404)).body).toEqual({ detail: 'Not Found' });
  });

  it('does nothing while the app is not built', async () => {
    const server = appServing(path.join(root, 'not-built')).callback();
    expect((await request(server).get('/').expect(404)).body).toEqual({ detail: 'Not Found' });
  });
});
