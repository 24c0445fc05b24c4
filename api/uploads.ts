import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Context, Middleware } from 'koa';
import busboy from 'busboy';
import { stageStream, type StagedFile } from '../lib/storage/staging';
import { HttpError } from './errors';
import { containsNul } from '../lib/nulText';
import { mediaPath, mediaPathRefusal } from '../lib/media/mediaPath';

export interface ReceivedFile extends StagedFile {
  /** Its relative path as the client sent it (`cats/1.jpg`), by the one naming rule (lib/media/mediaPath.ts). */
  fileName: string;
  /** The name of the folder the client sent the file from (`cats` for `cats/1.jpg`), or null. */
  folder: string | null;
  /** The multipart field the file came in. */
  field: string;
}

export interface UploadLimits {
  maxFileBytes: number;
  maxFiles: number;
}

/** Bounds of every multipart request, whatever the route: its text fields and how long it may stall. */
export interface MultipartLimits {
  maxFields: number;
  maxFieldBytes: number;
  idleTimeoutMs: number;
}

const MAX_FIELD_NAME_BYTES = 200;

/** Hands the operator's multipart limits to receiveFiles and receiveFields on every request. */
export function multipartLimits(limits: MultipartLimits): Middleware {
  return async (ctx, next) => {
    ctx.state.multipartLimits = limits;
    await next();
  };
}

function limitsOf(ctx: Context): MultipartLimits {
  const limits = ctx.state.multipartLimits as MultipartLimits | undefined;
  if (!limits) throw new Error('multipartLimits middleware is not installed');
  return limits;
}

interface FilePart {
  field: string;
  fileName: string;
  folder: string | null;
  stream: Readable;
}

/**
 * Reads one multipart body. Text fields are collected; each file part goes to `onFile`, which must
 * consume its stream and may return a promise (awaited before the result). The first problem (a
 * malformed body, a limit, a NUL character, a stall, a client leaving) stops reading at once,
 * destroys every open file stream and is thrown as an HttpError once `onFile` work has settled,
 * so callers can remove what they staged. The request's unread rest is the error handler's to drain.
 */
async function readMultipart(
  ctx: Context,
  files: UploadLimits,
  onFile: (part: FilePart, refuse: (error: HttpError) => void) => Promise<void> | undefined,
): Promise<Record<string, string>> {
  const limits = limitsOf(ctx);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: ctx.req.headers,
      // A file keeps the relative path it was sent under (`cats/1.jpg`); its folder can be its label (labels_from=folder).
      preservePath: true,
      limits: {
        fields: limits.maxFields,
        fieldSize: limits.maxFieldBytes,
        fieldNameSize: MAX_FIELD_NAME_BYTES,
        files: files.maxFiles,
        fileSize: files.maxFileBytes,
        parts: limits.maxFields + files.maxFiles,
      },
    });
  } catch (error) {
    // Thrown for a missing boundary or an unparsable Content-Type.
    throw new HttpError(422, `Malformed multipart body: ${(error as Error).message}`);
  }

  const req = ctx.req;
  const fields: Array<[string, string]> = [];
  const openStreams = new Set<Readable>();
  const work: Promise<void>[] = [];
  let problem: HttpError | undefined;
  let internal: unknown;
  let settle!: () => void;
  const finished = new Promise<void>((resolve) => (settle = resolve));

  let idleTimer: NodeJS.Timeout | undefined;
  const detach = () => {
    clearTimeout(idleTimer);
    req.unpipe(parser);
    req.off('data', resetIdleTimer);
    req.off('close', onRequestClose);
    req.off('error', onRequestError);
    settle();
  };
  const stop = () => {
    detach();
    for (const stream of openStreams) stream.destroy(new Error('upload stopped'));
  };
  const refuse = (error: HttpError) => {
    if (problem || internal) return;
    problem = error;
    stop();
  };
  function resetIdleTimer() {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      // The client is silent: answer now and drop the connection rather than drain a body that never comes.
      ctx.set('Connection', 'close');
      refuse(new HttpError(408, `Upload stalled: no data received for ${Math.round(limits.idleTimeoutMs / 1000)} s`));
    }, limits.idleTimeoutMs);
  }
  function onRequestClose() {
    if (!req.complete) refuse(new HttpError(400, 'The client closed the connection before the upload finished'));
  }
  function onRequestError() {
    refuse(new HttpError(400, 'The upload failed before it finished'));
  }

  parser.on('field', (name, value, info) => {
    if (problem) return;
    if (info.nameTruncated) return refuse(new HttpError(413, `A form field name is longer than ${MAX_FIELD_NAME_BYTES} bytes`));
    if (info.valueTruncated) return refuse(new HttpError(413, `Form field "${name}" is longer than ${limits.maxFieldBytes} bytes`));
    if (containsNul(name) || containsNul(value)) return refuse(new HttpError(422, `Form field "${name}" contains a NUL character`));
    fields.push([name, value]);
  });
  parser.on('file', (field, stream, info) => {
    // Busboy destroys a file stream with an error when the body ends early; unheard, that error kills the process.
    stream.on('error', () => undefined);
    if (problem) return void stream.resume();
    if (containsNul(field) || containsNul(info.filename ?? '')) {
      stream.resume();
      return refuse(new HttpError(422, 'A file part name or file name contains a NUL character'));
    }
    const { fileName, folder } = mediaPath(info.filename ?? '');
    stream.on('limit', () => refuse(new HttpError(413, `File ${fileName} exceeds ${files.maxFileBytes} bytes`)));
    openStreams.add(stream);
    stream.once('close', () => openStreams.delete(stream));
    const handled = onFile({ field, fileName, folder, stream }, refuse);
    if (!handled) return;
    work.push(
      handled.catch((error: unknown) => {
        if (problem || internal) return;
        internal = error;
        stop();
      }),
    );
  });
  parser.on('fieldsLimit', () => refuse(new HttpError(413, `At most ${limits.maxFields} form fields per request`)));
  parser.on('filesLimit', () => refuse(new HttpError(413, `At most ${files.maxFiles} files per request`)));
  parser.on('partsLimit', () => refuse(new HttpError(413, `At most ${limits.maxFields + files.maxFiles} parts per request`)));
  // Stays attached: busboy may report the same truncated body again when it is destroyed.
  parser.on('error', (error: Error) => refuse(new HttpError(422, `Malformed multipart body: ${error.message}`)));
  parser.on('close', () => {
    if (!problem) detach();
  });

  req.on('data', resetIdleTimer);
  req.on('close', onRequestClose);
  req.on('error', onRequestError);
  resetIdleTimer();
  req.pipe(parser);

  await finished;
  await Promise.all(work);
  if (problem) throw problem;
  if (internal) throw internal;
  return Object.fromEntries(fields);
}

export interface ReceiveOptions {
  /** The multipart fields file parts may come in. */
  fields: readonly string[];
  stagingDir: string;
  limits: UploadLimits;
  /** May refuse a file by its name and field. */
  check: (fileName: string, field: string) => HttpError | undefined;
}

/** Paths of a request shown when it sends them more than once. */
const REPEATED_SHOWN = 10;

function repeatedPaths(paths: string[]): string {
  const shown = paths.slice(0, REPEATED_SHOWN).join(', ') + (paths.length > REPEATED_SHOWN ? `, … (${paths.length} in all)` : '');
  return `Each file path may be sent once per request; sent more than once: ${shown}`;
}

export interface ReceivedUpload {
  files: ReceivedFile[];
  fields: Record<string, string>;
}

/**
 * Streams the multipart file parts named one of `fields` to temp files under `stagingDir`. `check`
 * may refuse a file (by name and field) with an HttpError; so are a path longer than
 * MAX_MEDIA_PATH_BYTES and a path sent twice in the request (422, naming them). Any problem removes
 * every staged file and throws, so a refused request leaves nothing behind.
 */
export async function receiveFiles(ctx: Context, options: ReceiveOptions): Promise<ReceivedUpload> {
  const expected = options.fields.map((field) => `"${field}"`).join(' or ');
  if (!ctx.is('multipart/form-data')) throw new HttpError(422, `Expected multipart/form-data with file parts named ${expected}`);
  const files: ReceivedFile[] = [];
  const sent = new Set<string>();
  const repeated = new Set<string>();
  try {
    const fields = await readMultipart(ctx, options.limits, ({ field, fileName, folder, stream }, refuse) => {
      const tooLong = fileName ? mediaPathRefusal(fileName) : undefined;
      const refusal = !options.fields.includes(field)
        ? new HttpError(422, `File parts must use the field name ${expected} (got "${field}")`)
        : !fileName
          ? new HttpError(400, 'A file part has no file name')
          : tooLong
            ? new HttpError(422, tooLong)
            : options.check(fileName, field);
      if (refusal) {
        stream.resume();
        refuse(refusal);
        return undefined;
      }
      if (sent.has(fileName)) repeated.add(fileName);
      sent.add(fileName);
      // Once a path came twice the request is refused: the rest is read only to name every repeated path.
      if (repeated.size > 0) {
        stream.resume();
        return undefined;
      }
      return stageStream(stream, options.stagingDir).then((staged) => void files.push({ ...staged, fileName, folder, field }));
    });
    if (repeated.size > 0) throw new HttpError(422, repeatedPaths([...repeated]));
    return { files, fields };
  } catch (error) {
    await removeStaged(files);
    throw error;
  }
}

export async function removeStaged(files: StagedFile[]): Promise<void> {
  await Promise.all(files.map((file) => fs.promises.rm(file.path, { force: true })));
}

/** Receives the upload (see receiveFiles), hands it to `use`, and removes the staged files afterwards, whatever `use` did. */
export async function withReceivedFiles<T>(ctx: Context, options: ReceiveOptions, use: (upload: ReceivedUpload) => Promise<T>): Promise<T> {
  const upload = await receiveFiles(ctx, options);
  try {
    return await use(upload);
  } finally {
    await removeStaged(upload.files);
  }
}

/** Plain form fields of a multipart or urlencoded body (file parts are refused with 422). */
export async function receiveFields(ctx: Context): Promise<Record<string, string>> {
  if (ctx.is('application/x-www-form-urlencoded')) {
    return Object.fromEntries(Object.entries((ctx.request.body ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  }
  if (!ctx.is('multipart/form-data')) throw new HttpError(422, 'Expected a multipart/form-data (or urlencoded) form');
  return readMultipart(ctx, { maxFiles: 1, maxFileBytes: 0 }, ({ field, stream }, refuse) => {
    stream.resume();
    refuse(new HttpError(422, `Unexpected file part "${field}": this form takes text fields only`));
    return undefined;
  });
}
