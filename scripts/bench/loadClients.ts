import http from 'node:http';
import { createGunzip } from 'node:zlib';
import { percentile } from './common';

// Closed-loop HTTP load: each client sends its next request when the previous answer has been read. Like a browser,
// a client accepts gzip and decompresses what comes compressed.

export interface LoadRequest {
  kind: string;
  url: string;
}

interface Outcome {
  kind: string;
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
  overall: LatencySummary;
  by_kind: Record<string, LatencySummary>;
}

const REQUEST_TIMEOUT_MS = 120_000;

/** GETs `url` and reads the answer; network errors and timeouts (0: none) resolve as a status, never throw. */
export function httpGet(agent: http.Agent, url: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<{ status: string; bytes: number; wireBytes: number; answer?: string }> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent, headers: { 'accept-encoding': 'gzip' } }, (response) => {
      let wireBytes = 0;
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        wireBytes += chunk.length;
      });
      const body = response.headers['content-encoding'] === 'gzip' ? response.pipe(createGunzip()) : response;
      if (body !== response) body.on('data', (chunk: Buffer) => (bytes += chunk.length));
      const answer = response.headers['x-explore-answer'];
      const status = String(response.statusCode);
      body.on('end', () => resolve({ status, bytes: body === response ? wireBytes : bytes, wireBytes, answer: typeof answer === 'string' ? answer : undefined }));
      body.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? 'response error', bytes, wireBytes }));
      if (body !== response) response.on('error', (error: NodeJS.ErrnoException) => resolve({ status: error.code ?? 'response error', bytes, wireBytes }));
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

/**
 * `clients` concurrent clients on keep-alive connections, each asking for `next(n)` (n counts every
 * request sent) until `seconds` have passed; requests under way then are awaited and counted.
 */
export async function runLoad(options: { clients: number; seconds: number; next: (n: number) => LoadRequest }): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.clients });
  const outcomes: Outcome[] = [];
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(options.seconds * 1e9);
  let sent = 0;
  const client = async () => {
    while (process.hrtime.bigint() < deadline) {
      const request = options.next(sent++);
      const at = process.hrtime.bigint();
      const { status, bytes, wireBytes, answer } = await httpGet(agent, request.url);
      outcomes.push({ kind: request.kind, ms: Number(process.hrtime.bigint() - at) / 1e6, status, bytes, wireBytes, answer });
    }
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  agent.destroy();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const kinds = [...new Set(outcomes.map((outcome) => outcome.kind))];
  return {
    seconds: Math.round(seconds * 10) / 10,
    overall: summarise(outcomes, seconds),
    by_kind: Object.fromEntries(kinds.map((kind) => [kind, summarise(outcomes.filter((outcome) => outcome.kind === kind), seconds)])),
  };
}
