import type { Test } from 'supertest';

export interface MapPage {
  layoutId: string | undefined;
  x: Float32Array;
  y: Float32Array;
  cluster: Uint8Array;
  label: Uint8Array;
  issue: Uint8Array;
}

/** Reads a binary page of `GET …/map/points`: n x, n y (Float32, little-endian), then n cluster, label and issue colours. */
export async function mapPage(request: Test): Promise<MapPage> {
  const response = await request
    .expect(200)
    .expect('Content-Type', 'application/octet-stream')
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
  const bytes = response.body as Buffer;
  const n = Number(response.headers['x-map-points']);
  if (bytes.length !== n * 11) throw new Error(`a page of ${n} points has ${bytes.length} bytes, not ${n * 11}`);
  const copy = new Uint8Array(bytes).buffer;
  return {
    layoutId: response.headers['x-map-layout-id'],
    x: new Float32Array(copy, 0, n),
    y: new Float32Array(copy, n * 4, n),
    cluster: new Uint8Array(copy, n * 8, n),
    label: new Uint8Array(copy, n * 9, n),
    issue: new Uint8Array(copy, n * 10, n),
  };
}
