import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../lib/config';
import {
  cleanCaption,
  createVisionCaptioner,
  DEFAULT_CAPTION_PROMPT,
  MAX_CAPTION_LENGTH,
  VISION_CAPTIONER_ID,
  VisionCaptionError,
} from '../../lib/ml/visionCaptioner';

interface Received {
  method?: string;
  url?: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

type Reply = (res: http.ServerResponse) => void;

const json = (status: number, body: unknown): Reply => (res) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const completion = (content: unknown) => json(200, { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] });

const KEY = 'sk-test-0123456789abcdef';
const IMAGE = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 250]);

describe('the vision endpoint captioner (a local OpenAI-compatible test server)', () => {
  let server: http.Server;
  let base: string;
  let received: Received[];
  let reply: Reply;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // kept as text
        }
        received.push({ method: req.method, url: req.url, headers: req.headers, body });
        reply(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    received = [];
    reply = completion('A cat sleeping on a sofa.');
  });

  it('posts the chat completions request with the prompt and the image as a data URI, and the bearer key', async () => {
    const captioner = createVisionCaptioner({ url: `${base}/`, model: 'llava', apiKey: KEY });
    expect(captioner.modelId).toBe(VISION_CAPTIONER_ID);
    expect(captioner.endpointModel).toBe('llava');
    expect(await captioner.caption(IMAGE, 'image/jpeg')).toBe('A cat sleeping on a sofa.');
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body).toEqual({
      model: 'llava',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: DEFAULT_CAPTION_PROMPT },
            { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${IMAGE.toString('base64')}` } },
          ],
        },
      ],
      max_tokens: expect.any(Number),
    });
  });

  it('sends no Authorization header without a key, and the prompt and max_tokens it is given', async () => {
    const captioner = createVisionCaptioner({ url: base, model: 'qwen2-vl', prompt: 'Caption it.', maxTokens: 40 });
    await captioner.caption(IMAGE, 'image/png');
    const [request] = received;
    expect(request.headers.authorization).toBeUndefined();
    const body = request.body as { model: string; max_tokens: number; messages: Array<{ content: Array<{ text?: string; image_url?: { url: string } }> }> };
    expect(body.model).toBe('qwen2-vl');
    expect(body.max_tokens).toBe(40);
    expect(body.messages[0].content[0].text).toBe('Caption it.');
    expect(body.messages[0].content[1].image_url?.url).toMatch(/^data:image\/png;base64,/);
  });

  it('returns one trimmed line: quotes stripped, whitespace collapsed, text parts joined', async () => {
    const captioner = createVisionCaptioner({ url: base, model: 'llava' });
    reply = completion('  "A red bicycle\n leaning  against\ta wall."  \n');
    expect(await captioner.caption(IMAGE, 'image/jpeg')).toBe('A red bicycle leaning against a wall.');
    reply = completion([
      { type: 'text', text: '“Two dogs' },
      { type: 'text', text: 'on a beach.”' },
    ]);
    expect(await captioner.caption(IMAGE, 'image/jpeg')).toBe('Two dogs on a beach.');
  });

  it('caps a long caption at 500 characters, on a word boundary', async () => {
    const captioner = createVisionCaptioner({ url: base, model: 'llava' });
    reply = completion(`${'word '.repeat(150)}end`);
    const caption = await captioner.caption(IMAGE, 'image/jpeg');
    expect(caption.length).toBeLessThanOrEqual(MAX_CAPTION_LENGTH);
    expect(caption.length).toBeGreaterThan(MAX_CAPTION_LENGTH - 10);
    expect(caption).toMatch(/word$/);
    expect(cleanCaption('x'.repeat(600))).toHaveLength(MAX_CAPTION_LENGTH);
  });

  it('gives up after the timeout, as a retryable error', async () => {
    const captioner = createVisionCaptioner({ url: base, model: 'llava', timeoutMs: 150 });
    reply = (res) => setTimeout(() => completion('late')(res), 1_000);
    const started = Date.now();
    const error = await captioner.caption(IMAGE, 'image/jpeg').catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(900);
    expect(error).toBeInstanceOf(VisionCaptionError);
    expect((error as VisionCaptionError).message).toBe(`Vision caption endpoint ${base}/chat/completions did not answer within 150 ms`);
    expect((error as VisionCaptionError).retryable).toBe(true);
  });

  it('maps a non-2xx answer to an error with the status and a short excerpt, never the key', async () => {
    const captioner = createVisionCaptioner({ url: base, model: 'llava', apiKey: KEY });
    reply = json(401, { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error' }, padding: 'x'.repeat(1000) });
    const error = (await captioner.caption(IMAGE, 'image/jpeg').catch((e: unknown) => e)) as VisionCaptionError;
    expect(error).toBeInstanceOf(VisionCaptionError);
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('answered 401 Unauthorized: {"error":{"message":"Incorrect API key provided: ***"');
    expect(error.message).not.toContain(KEY);
    expect(error.message.length).toBeLessThan(400);

    reply = json(503, { error: 'model is loading' });
    const busy = (await captioner.caption(IMAGE, 'image/jpeg').catch((e: unknown) => e)) as VisionCaptionError;
    expect(busy.message).toContain('answered 503 Service Unavailable: {"error":"model is loading"}');
    expect(busy.retryable).toBe(true);

    reply = json(429, {});
    expect(((await captioner.caption(IMAGE, 'image/jpeg').catch((e: unknown) => e)) as VisionCaptionError).retryable).toBe(true);
  });

  it('maps malformed JSON and answers without a caption to clear errors', async () => {
    const captioner = createVisionCaptioner({ url: base, model: 'llava' });
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Bad   gateway page</body></html>');
    };
    await expect(captioner.caption(IMAGE, 'image/jpeg')).rejects.toThrow(`Vision caption endpoint ${base}/chat/completions answered 200 with malformed JSON: <html><body>Bad gateway page</body></html>`);
    reply = json(200, { choices: [] });
    await expect(captioner.caption(IMAGE, 'image/jpeg')).rejects.toThrow('answered 200 without choices[0].message.content: {"choices":[]}');
    reply = completion('  ""  ');
    await expect(captioner.caption(IMAGE, 'image/jpeg')).rejects.toThrow('answered 200 with an empty caption');
  });

  it('says when the endpoint cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const captioner = createVisionCaptioner({ url: `http://127.0.0.1:${port}/v1`, model: 'llava' });
    const error = (await captioner.caption(IMAGE, 'image/jpeg').catch((e: unknown) => e)) as VisionCaptionError;
    expect(error.message).toBe(`Vision caption endpoint http://127.0.0.1:${port}/v1/chat/completions could not be reached: ECONNREFUSED`);
    expect(error.retryable).toBe(true);
  });

  it('rejects a URL that is not http(s) and a type that is not an image', async () => {
    expect(() => createVisionCaptioner({ url: 'ftp://example.com/v1', model: 'llava' })).toThrow('expected an http or https URL');
    expect(() => createVisionCaptioner({ url: 'not a url', model: 'llava' })).toThrow('the URL is not valid');
    await expect(createVisionCaptioner({ url: base, model: 'llava' }).caption(IMAGE, 'text/plain')).rejects.toThrow('"text/plain" is not an image type');
    expect(received).toHaveLength(0);
  });
});

describe('the vision caption settings (VISION_CAPTION_*)', () => {
  it('are absent without VISION_CAPTION_URL', () => {
    expect(loadConfig({}).enrichment.visionCaption).toBeUndefined();
    expect(loadConfig({ VISION_CAPTION_MODEL: 'qwen2-vl' }).enrichment.visionCaption).toBeUndefined();
  });

  it('take the URL (without a trailing slash), the model (default llava) and the key', () => {
    expect(loadConfig({ VISION_CAPTION_URL: 'http://localhost:11434/v1/' }).enrichment.visionCaption).toEqual({
      url: 'http://localhost:11434/v1',
      model: 'llava',
      apiKey: undefined,
    });
    expect(
      loadConfig({ VISION_CAPTION_URL: 'https://vllm.internal/v1', VISION_CAPTION_MODEL: 'Qwen/Qwen2-VL-2B-Instruct', VISION_CAPTION_API_KEY: KEY }).enrichment
        .visionCaption,
    ).toEqual({ url: 'https://vllm.internal/v1', model: 'Qwen/Qwen2-VL-2B-Instruct', apiKey: KEY });
  });

  it('reject a URL that is not http(s)', () => {
    expect(() => loadConfig({ VISION_CAPTION_URL: 'ftp://host/v1' })).toThrow('VISION_CAPTION_URL="ftp://host/v1": expected an http or https URL');
    expect(() => loadConfig({ VISION_CAPTION_URL: 'localhost:11434' })).toThrow(/VISION_CAPTION_URL=.*expected/);
  });
});
