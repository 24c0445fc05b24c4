/**
 * Captions from a vision language model behind an OpenAI-compatible chat completions endpoint (vLLM,
 * Ollama, llama.cpp's server, LM Studio, OpenAI itself…): the image goes inline as a data URI, the
 * answer comes back as one trimmed line.
 */

export const VISION_CAPTIONER_ID = 'vision-endpoint-captioner@1';
export const DEFAULT_CAPTION_PROMPT =
  'Describe this image in one short sentence for a caption: what it shows, no preamble, no quotes.';
export const DEFAULT_CAPTION_TIMEOUT_MS = 60_000;
export const DEFAULT_CAPTION_MAX_TOKENS = 96;
/** Longest caption kept; a longer answer is cut at a word boundary. */
export const MAX_CAPTION_LENGTH = 500;
const BODY_EXCERPT_LENGTH = 200;

export interface VisionCaptionerSettings {
  /** The API base, up to and including `/v1` (`http://localhost:11434/v1` for Ollama); `/chat/completions` is added. */
  url: string;
  /** The model name the endpoint serves (`llava`, `Qwen/Qwen2-VL-2B-Instruct`…). */
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>` when set. */
  apiKey?: string;
  /** Deadline of one request, answer included (default 60 s). */
  timeoutMs?: number;
  prompt?: string;
  /** max_tokens of the request (default 96). */
  maxTokens?: number;
}

export interface VisionCaptioner {
  /** The enrichment model id (`vision-endpoint-captioner@1`); `endpointModel` is the model the endpoint runs. */
  modelId: string;
  endpointModel: string;
  /** A one-line caption of the image (encoded bytes of type `mimeType`, such as image/jpeg). */
  caption(image: Buffer, mimeType: string): Promise<string>;
}

/**
 * The endpoint failed or answered something unusable. `retryable` is true for what may pass on a
 * later try (timeouts, unreachable endpoint, 408, 429, 5xx); the message never holds the API key.
 */
export class VisionCaptionError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'VisionCaptionError';
  }
}

const QUOTES = /^["'`“”‘’«»]+|["'`“”‘’«»]+$/g;

/** One line, quotes around it dropped, whitespace collapsed, at most MAX_CAPTION_LENGTH characters. */
export function cleanCaption(text: string): string {
  let caption = text.replace(/\s+/g, ' ').trim();
  for (let previous = ''; previous !== caption; ) {
    previous = caption;
    caption = caption.replace(QUOTES, '').trim();
  }
  if (caption.length <= MAX_CAPTION_LENGTH) return caption;
  const cut = caption.slice(0, MAX_CAPTION_LENGTH);
  const space = cut.lastIndexOf(' ');
  return (space > MAX_CAPTION_LENGTH * 0.8 ? cut.slice(0, space) : cut).trim();
}

/** The text of the first choice: a string, or (some servers) an array of text parts. */
function answerText(body: unknown): string | undefined {
  const content = (body as { choices?: Array<{ message?: { content?: unknown } }> } | null)?.choices?.[0]?.message?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.map((part: { type?: unknown; text?: unknown }) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : ''));
    return parts.join(' ');
  }
  return undefined;
}

/** The URL without credentials, to name the endpoint in errors and logs. */
function displayUrl(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}

export function createVisionCaptioner(settings: VisionCaptionerSettings): VisionCaptioner {
  let base: URL;
  try {
    base = new URL(settings.url);
  } catch {
    throw new VisionCaptionError('Vision caption endpoint: the URL is not valid (expected http(s)://host[:port]/v1)', false);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new VisionCaptionError(`Vision caption endpoint: expected an http or https URL, got ${base.protocol}`, false);
  }
  const endpoint = `${settings.url.replace(/\/+$/, '')}/chat/completions`;
  const shownEndpoint = displayUrl(endpoint);
  const timeoutMs = settings.timeoutMs ?? DEFAULT_CAPTION_TIMEOUT_MS;
  const prompt = settings.prompt ?? DEFAULT_CAPTION_PROMPT;
  const maxTokens = settings.maxTokens ?? DEFAULT_CAPTION_MAX_TOKENS;
  const { apiKey } = settings;

  /** A short, single-line excerpt of what the endpoint said, with the key blanked should it echo it. */
  const excerpt = (text: string): string => {
    let short = text.replace(/\s+/g, ' ').trim();
    if (apiKey) short = short.split(apiKey).join('***');
    return short.length > BODY_EXCERPT_LENGTH ? `${short.slice(0, BODY_EXCERPT_LENGTH)}…` : short || '(empty body)';
  };
  const fail = (message: string, retryable: boolean, status?: number) => new VisionCaptionError(`Vision caption endpoint ${shownEndpoint} ${message}`, retryable, status);

  return {
    modelId: VISION_CAPTIONER_ID,
    endpointModel: settings.model,
    async caption(image, mimeType) {
      if (!/^image\/[A-Za-z0-9.+-]+$/.test(mimeType)) {
        throw new VisionCaptionError(`Vision caption endpoint: "${mimeType}" is not an image type`, false);
      }
      const body = {
        model: settings.model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: prompt },
              { type: 'image_url', image_url: { url: `data:${mimeType};base64,${image.toString('base64')}` } },
            ],
          },
        ],
        max_tokens: maxTokens,
      };
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (apiKey) headers.authorization = `Bearer ${apiKey}`;

      let response: Response;
      let text: string;
      try {
        response = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs) });
        text = await response.text();
      } catch (error) {
        const cause = error as Error & { cause?: { code?: string; message?: string } };
        if (cause.name === 'TimeoutError' || cause.name === 'AbortError') throw fail(`did not answer within ${timeoutMs} ms`, true);
        throw fail(`could not be reached: ${cause.cause?.code ?? cause.cause?.message ?? cause.message}`, true);
      }
      if (!response.ok) {
        const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
        const status = response.statusText ? `${response.status} ${response.statusText}` : String(response.status);
        throw fail(`answered ${status}: ${excerpt(text)}`, retryable, response.status);
      }
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw fail(`answered ${response.status} with malformed JSON: ${excerpt(text)}`, false, response.status);
      }
      const answer = answerText(json);
      if (answer === undefined) throw fail(`answered ${response.status} without choices[0].message.content: ${excerpt(text)}`, false, response.status);
      const caption = cleanCaption(answer);
      if (!caption) throw fail(`answered ${response.status} with an empty caption`, false, response.status);
      return caption;
    },
  };
}
