import http from 'node:http';
import { percentile } from './common';

// HTTP load from concurrent clients on keep-alive connections. Closed loop: each client sends its next request when the
// previous answer has been read, so the answer time is the queue the clients themselves make (50 clients at X requests/s
// wait 50/X s on average). At a fixed rate: requests are due at an even pace and a free client sends each when it is due;
// its time counts from when it was due, so a request that waited for a free client counts its wait too. Like a browser,
// a client accepts gzip.

export interface LoadRequest {
  kind: string;
  url: string;
}

interface Outcome {
  kind: string;
  /** When it was sent (at a fixed rate: due), in seconds from the start. */
  at: number;
  ms: number;
  /** HTTP status, or the network error's code. */
  status: string;
  /** Bytes of the answer, decompressed, and as sent. */
  bytes: number;
  wireBytes: number;
  /** Where the API says the answer came from (its X-Explore-Answer header), if it says. */
  answer?: string;
}

export interface LatencySummary {
  requests: number;
  requests_per_second: number;
  p50_ms: number;
  p95_ms: number;
  p99_ms: number;
  mean_response_kib: number;
  /** The same as sent (gzip-compressed when the API compressed it). */
  mean_wire_kib: number;
  /** Answers other than 200, by status (or network error code). */
  errors: Record<string, number>;
  /** Answers by where the API says they came from (X-Explore-Answer: hit, miss, shared), when it says. */
  answers: Record<string, number>;
}

export interface LoadResult {
  seconds: number;
  /** Requests a second offered at an even pace; null for a closed loop. */
  offered_rate: number | null;
  overall: LatencySummary;
  /** The requests sent (at a fixed rate: due) in each WINDOW_SECONDS of the load, in order: does the answer time hold? */
  by_window: Array<{ from_second: number; requests: number; p50_ms: number; p95_ms: number; answers: Record<string, number> }>;
  by_kind: Record<string, LatencySummary>;
}

const REQUEST_TIMEOUT_MS = 120_000;
export const WINDOW_SECONDS = 10;

/**
 * GETs `url` and reads the answer; network errors and timeouts (0: none) resolve as a status, never throw. A
 * gzip-compressed answer's size as decompressed is read from its gzip trailer (ISIZE, the size modulo 2^32) rather
 * than by decompressing it: the clients share the service's cores, and a real client's decompression runs on its own.
 */
export function httpGet(agent: http.Agent, url: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<{ status: string; bytes: number; wireBytes: number; answer?: string }> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent, headers: { 'accept-encoding': 'gzip' } }, (response) => {
      let wireBytes = 0;
      let last: Buffer = Buffer.alloc(0);
      response.on('data', (chunk: Buffer) => {
        wireBytes += chunk.length;
        last = chunk.length >= 4 ? chunk : Buffer.concat([last, chunk]).subarray(-4);
      });
      const gzipped = response.headers['content-encoding'] === 'gzip';
      const answer = response.headers['x-explore-answer'];
      const status = String(response.statusCode);
      response.on('end', () =>
        resolve({ status, bytes: gzipped && last.length >= 4 ? last.readUInt32LE(last.length - 4) : wireBytes, wireBytes, answer: typeof answer === 'string' ? answer : undefined }),
      );
      response.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? 'response error', bytes: 0, wireBytes }));
    });
    request.setTimeout(timeoutMs, () => request.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? 'request error', bytes: 0, wireBytes: 0 }));
  });
}

function summarise(outcomes: Outcome[], seconds: number): LatencySummary {
  const times = outcomes.map((outcome) => outcome.ms).sort((a, b) => a - b);
  const errors: Record<string, number> = {};
  const answers: Record<string, number> = {};
  for (const outcome of outcomes) {
    if (outcome.status !== '200') errors[outcome.status] = (errors[outcome.status] ?? 0) + 1;
    if (outcome.answer) answers[outcome.answer] = (answers[outcome.answer] ?? 0) + 1;
  }
  const round = (value: number | undefined) => (value === undefined ? NaN : Math.round(value * 10) / 10);
  const meanKib = (bytesOf: (outcome: Outcome) => number) => round(outcomes.reduce((sum, outcome) => sum + bytesOf(outcome), 0) / Math.max(1, outcomes.length) / 1024);
  return {
    requests: outcomes.length,
    requests_per_second: round(outcomes.length / seconds),
    p50_ms: round(percentile(times, 0.5)),
    p95_ms: round(percentile(times, 0.95)),
    p99_ms: round(percentile(times, 0.99)),
    mean_response_kib: meanKib((outcome) => outcome.bytes),
    mean_wire_kib: meanKib((outcome) => outcome.wireBytes),
    errors,
    answers,
  };
}

const sleepUntil = (at: bigint) => new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(at - process.hrtime.bigint()) / 1e6)));

/**
 * `clients` concurrent clients on keep-alive connections, each asking for `next(n)` (n counts every
 * request sent) until `seconds` have passed; requests under way then are awaited and counted. With `rate`,
 * request n is due `n / rate` s after the start (see above).
 */
export async function runLoad(options: { clients: number; seconds: number; rate?: number; next: (n: number) => LoadRequest }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.clients });
  const outcomes: Outcome[] = [];
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(options.seconds * 1e9);
  const { rate } = options;
  let sent = 0;
  const client = async () => {
    for (;;) {
      const n = sent++;
      const due = rate ? started + BigInt(Math.round((n * 1e9) / rate)) : process.hrtime.bigint();
      if (due >= deadline) break;
      if (rate) await sleepUntil(due);
      const request = options.next(n);
      const at = rate ? due : process.hrtime.bigint();
      const { status, bytes, wireBytes, answer } = await httpGet(agent, request.url);
      outcomes.push({ kind: request.kind, at: Number(at - started) / 1e9, ms: Number(process.hrtime.bigint() - at) / 1e6, status, bytes, wireBytes, answer });
    }
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  agent.destroy();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const kinds = [...new Set(outcomes.map((outcome) => outcome.kind))];
  const windows = Array.from({ length: Math.ceil(options.seconds / WINDOW_SECONDS) }, (_, i) => {
    const inWindow = outcomes.filter((outcome) => Math.floor(outcome.at / WINDOW_SECONDS) === i);
    const { requests, p50_ms, p95_ms, answers } = summarise(inWindow, WINDOW_SECONDS);
    return { from_second: i * WINDOW_SECONDS, requests, p50_ms, p95_ms, answers };
  });
  return {
    seconds: Math.round(seconds * 10) / 10,
    offered_rate: rate ?? null,
    overall: summarise(outcomes, seconds),
    by_window: windows,
    by_kind: Object.fromEntries(kinds.map((kind) => [kind, summarise(outcomes.filter((outcome) => outcome.kind === kind), seconds)])),
  };
}
