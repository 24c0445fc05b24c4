import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createApp } from '../../api/app';
import { freePort } from './ports';
import type { TestApi } from './testStack';

/** Debian's chromium (apt-get install chromium); nothing downloads a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const WEB_DIST = path.join(__dirname, '..', '..', 'web', 'dist');
export const SCREENSHOTS_DIR = path.join(__dirname, '..', '..', 'test-results');

/** Fails with what to do when the browser or the built app is missing, instead of a timeout. */
export function assertBrowserPrerequisites(): void {
  if (!fs.existsSync(CHROMIUM_PATH)) throw new Error(`No Chromium at ${CHROMIUM_PATH}: apt-get install -y chromium, or set CHROMIUM_PATH`);
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) throw new Error(`The web app is not built (${WEB_DIST}): npm run web:build`);
}

/** test-results/ for screenshots, ignored by git. */
export function screenshotsDir(): string {
  fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  fs.writeFileSync(path.join(SCREENSHOTS_DIR, '.gitignore'), '*\n');
  return SCREENSHOTS_DIR;
}

/** `args`: more Chromium switches (e.g. --host-resolver-rules, to serve a public host name from a local port). */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args });
}

/** The test API on a real port, so the browser loads the built app and its signed media links from it. */
/** A PUBLIC_URL for an API a test serves over HTTP itself (serveOverHttp): a free port of this machine. */
export async function localPublicUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

export async function serveOverHttp(api: Pick<TestApi, 'deps'>): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(createApp(api.deps).callback());
  // At its PUBLIC_URL (a free local port: localPublicUrl), which its links and origin checks name.
  const url = api.deps.config.publicUrl;
  await new Promise<void>((resolve) => server.listen(Number(new URL(url).port), '127.0.0.1', resolve));
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
