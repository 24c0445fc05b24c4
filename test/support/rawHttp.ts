import net from 'node:net';

export interface RawResponse {
  /** 0 when the connection closed without an answer. */
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** An HTTP/1.1 request exactly as given: any header, any body, Content-Length set to the body's (unless given). */
export function rawRequest(method: string, target: string, headers: Array<[string, string]>, body: Buffer | string = ''): Buffer {
  const bytes = Buffer.from(body);
  const names = new Set(headers.map(([name]) => name.toLowerCase()));
  const all: Array<[string, string]> = [['Host', '127.0.0.1'], ['Connection', 'close'], ...headers];
  if (!names.has('content-length') && (bytes.length > 0 || method !== 'GET')) all.push(['Content-Length', String(bytes.length)]);
  const head = `${method} ${target} HTTP/1.1\r\n${all.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), bytes]);
}

function parseResponse(raw: Buffer): RawResponse {
  const text = raw.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/1.1 ') || end < 0) return { status: 0, headers: {}, body: text };
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: text.slice(end + 4) };
}

/** Writes `request` to `url`'s host and port and resolves with the answer once the server closes the connection. */
export function sendRaw(url: string, request: Buffer, options: { timeoutMs?: number } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    socket.setTimeout(options.timeoutMs ?? 15_000, () => {
      socket.destroy();
      reject(new Error(`no answer within ${options.timeoutMs ?? 15_000} ms to ${request.subarray(0, 200).toString('latin1')}`));
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the answer (the server refusing the rest of a body) still leaves the answer readable.
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(parseResponse(Buffer.concat(chunks))));
  });
}

export interface MultipartPart {
  name: string;
  /** A file part's name as given (any bytes); none for a text field. */
  filename?: string;
  /** A `filename*` (RFC 5987) value, e.g. `UTF-8''a%00.jpg`. */
  filenameStar?: string;
  content: Buffer | string;
}

/** A multipart/form-data body; `close: false` leaves out the closing boundary, as a truncated upload does. */
export function multipartBody(boundary: string, parts: MultipartPart[], options: { close?: boolean } = {}): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    let disposition = `form-data; name="${part.name}"`;
    if (part.filename !== undefined) disposition += `; filename="${part.filename}"`;
    if (part.filenameStar !== undefined) disposition += `; filename*=${part.filenameStar}`;
    const type = part.filename !== undefined || part.filenameStar !== undefined ? '\r\nContent-Type: application/octet-stream' : '';
    pieces.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  if (options.close !== false) pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(pieces);
}
