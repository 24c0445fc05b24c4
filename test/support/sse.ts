import http from 'node:http';

export interface Stream {
  events: Array<{ event: string; data: unknown }>;
  /** Settles when the server ends the stream (not when `close` is called). */
  ended: Promise<void>;
  close(): void;
  /** Stops reading from the connection (a client that does not read), until `resume`. */
  pause(): void;
  resume(): void;
}

/** A real SSE client: parses `event:` / `data:` blocks as they arrive. */
export function openStream(port: number, query = '', headers: http.OutgoingHttpHeaders = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const events: Stream['events'] = [];
    const request = http.get({ port, host: '127.0.0.1', path: `/api/v1/notifications/stream${query}`, headers }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`));
      expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
      let buffer = '';
      response.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (event) events.push({ event, data: data ? JSON.parse(data) : undefined });
        }
      });
      response.on('error', () => undefined);
      const ended = new Promise<void>((settle) => response.once('end', () => settle()));
      resolve({ events, ended, close: () => request.destroy(), pause: () => response.pause(), resume: () => response.resume() });
    });
    request.on('error', (error) => (error.message.includes('socket hang up') ? undefined : reject(error)));
  });
}
