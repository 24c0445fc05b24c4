import type { Page } from 'playwright-core';
import type { Test } from 'supertest';

export interface MapPage {
  layoutId: string | undefined;
  x: Float32Array;
  y: Float32Array;
  cluster: Uint8Array;
  label: Uint8Array;
  issue: Uint8Array;
  class: Uint8Array;
}

/** Reads a binary page of `GET …/map/points`: n x, n y (Float32, little-endian), then n cluster, label, issue and class colours. */
export async function mapPage(request: Test): Promise<MapPage> {
  const response = await binaryBody(request);
  const bytes = response.body as Buffer;
  const n = Number(response.headers['x-map-points']);
  if (bytes.length !== n * 12) throw new Error(`a page of ${n} points has ${bytes.length} bytes, not ${n * 12}`);
  const copy = new Uint8Array(bytes).buffer;
  return {
    layoutId: response.headers['x-map-layout-id'],
    x: new Float32Array(copy, 0, n),
    y: new Float32Array(copy, n * 4, n),
    cluster: new Uint8Array(copy, n * 8, n),
    label: new Uint8Array(copy, n * 9, n),
    issue: new Uint8Array(copy, n * 10, n),
    class: new Uint8Array(copy, n * 11, n),
  };
}

/** The body of a binary answer, as bytes. */
async function binaryBody(request: Test) {
  return request
    .expect(200)
    .expect('Content-Type', 'application/octet-stream')
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
}

/** Reads `GET …/map/matches`: the indexes of the points whose bit is set, how many the header says, and the layout. */
export async function mapMatches(request: Test): Promise<{ layoutId: string | undefined; matched: number; indices: number[] }> {
  const response = await binaryBody(request);
  const bytes = response.body as Buffer;
  const total = Number(response.headers['x-map-total']);
  if (bytes.length !== Math.ceil(total / 8)) throw new Error(`a bitmap of ${total} points has ${bytes.length} bytes`);
  const indices = Array.from({ length: total }, (_, i) => i).filter((i) => (bytes[i >> 3] >> (i & 7)) & 1);
  return { layoutId: response.headers['x-map-layout-id'], matched: Number(response.headers['x-map-matches']), indices };
}

/** Whether (x, y) lies inside `polygon` (even-odd ray casting): the brute-force check of the SQL's `point <@ polygon`. */
export function insidePolygon(x: number, y: number, polygon: ReadonlyArray<readonly [number, number]>): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i];
    const [xj, yj] = polygon[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/**
 * A triangle whose long edge is the line x + y = c, with c in the middle of the widest gap between the
 * points' x + y near the middle of the map: it holds the lower-left points and no point lies near its edge.
 */
export function lowerLeftTriangle(page: Pick<MapPage, 'x' | 'y'>): Array<[number, number]> {
  const sums = [...page.x.keys()].map((i) => page.x[i] + page.y[i]).sort((a, b) => a - b);
  let [c, widest] = [0, -1];
  for (let i = Math.floor(sums.length / 4); i < Math.ceil((sums.length * 3) / 4); i++) {
    if (sums[i] - sums[i - 1] > widest) [widest, c] = [sums[i] - sums[i - 1], (sums[i] + sums[i - 1]) / 2];
  }
  return [[-10, -10], [c + 10, -10], [-10, c + 10]];
}

/**
 * Moves the pressed mouse from where it is through `corners` (screen points), a few steps a side, as a lasso is drawn.
 * Each move waits for the page to draw it (slow on a software WebGL), and the sides are straight, so a few steps
 * draw the same polygon as many. regl-scatterplot keeps one position every 10 ms (lassoMinDelay) and the last of
 * quicker ones, so the mouse rests at each corner and no corner is dropped.
 */
export async function lassoThrough(page: Page, corners: ReadonlyArray<readonly [number, number]>, steps = 4): Promise<void> {
  for (const [x, y] of corners) {
    await page.mouse.move(x, y, { steps });
    await page.waitForTimeout(20);
  }
}
