import fs from 'node:fs';
import path from 'node:path';
import type { Context } from 'koa';
import busboy from 'busboy';
import { stageStream, type StagedFile } from '../lib/storage/staging';
import { HttpError } from './errors';

export interface ReceivedFile extends StagedFile {
  fileName: string;
  /** The multipart field the file came in. */
  field: string;
}

export interface UploadLimits {
  maxFileBytes: number;
  maxFiles: number;
}

/**
 * Streams the multipart file parts named one of `fields` to temp files under `stagingDir`. `check`
 * may refuse a file (by name and field) with an HttpError. Any problem removes every staged file and throws, so a
 * refused request leaves nothing behind.
 */
export async function receiveFiles(
  ctx: Context,
  options: {
    fields: readonly string[];
    stagingDir: string;
    limits: UploadLimits;
    check: (fileName: string, field: string) => HttpError | undefined;
  },
): Promise<{ files: ReceivedFile[]; fields: Record<string, string> }> {
  const expected = options.fields.map((field) => `"${field}"`).join(' or ');
  if (!ctx.is('multipart/form-data')) throw new HttpError(422, `Expected multipart/form-data with file parts named ${expected}`);
  const files: ReceivedFile[] = [];
  const fields: Record<string, string> = {};
  const pending: Promise<void>[] = [];
  let problem: HttpError | undefined;
  const refuse = (error: HttpError) => (problem ??= error);

  const parser = busboy({
    headers: ctx.req.headers,
    limits: { fileSize: options.limits.maxFileBytes, files: options.limits.maxFiles },
  });
  parser.on('file', (name, stream, info) => {
    const fileName = path.basename(info.filename ?? '');
    const refusal = !options.fields.includes(name)
      ? new HttpError(422, `File parts must use the field name ${expected} (got "${name}")`)
      : !fileName
        ? new HttpError(400, 'A file part has no file name')
        : options.check(fileName, name);
    if (refusal || problem) {
      if (refusal) refuse(refusal);
      stream.resume();
      return;
    }
    stream.on('limit', () => refuse(new HttpError(413, `File ${fileName} exceeds ${options.limits.maxFileBytes} bytes`)));
    pending.push(
      stageStream(stream, options.stagingDir).then((staged) => {
        files.push({ ...staged, fileName, field: name });
      }),
    );
  });
  parser.on('field', (name, value) => (fields[name] = value));
  parser.on('filesLimit', () => refuse(new HttpError(413, `At most ${options.limits.maxFiles} files per request`)));

  try {
    await new Promise<void>((resolve, reject) => {
      parser.on('close', resolve);
      parser.on('error', (error: Error) => reject(new HttpError(422, `Malformed multipart body: ${error.message}`)));
      ctx.req.pipe(parser);
    });
    await Promise.all(pending);
  } catch (error) {
    await Promise.allSettled(pending);
    await removeStaged(files);
    throw error;
  }
  if (problem) {
    await removeStaged(files);
    throw problem;
  }
  return { files, fields };
}

export async function removeStaged(files: StagedFile[]): Promise<void> {
  await Promise.all(files.map((file) => fs.promises.rm(file.path, { force: true })));
}

/** Plain form fields of a multipart or urlencoded body (file parts are refused with 422). */
export async function receiveFields(ctx: Context): Promise<Record<string, string>> {
  if (ctx.is('application/x-www-form-urlencoded')) {
    return Object.fromEntries(Object.entries((ctx.request.body ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  }
  if (!ctx.is('multipart/form-data')) throw new HttpError(422, 'Expected a multipart/form-data (or urlencoded) form');
  const fields: Record<string, string> = {};
  let refused: HttpError | undefined;
  const parser = busboy({ headers: ctx.req.headers, limits: { fieldSize: 1024 * 1024 } });
  parser.on('field', (name, value) => (fields[name] = value));
  parser.on('file', (name, stream) => {
    refused ??= new HttpError(422, `Unexpected file part "${name}": this form takes text fields only`);
    stream.resume();
  });
  await new Promise<void>((resolve, reject) => {
    parser.on('close', resolve);
    parser.on('error', (error: Error) => reject(new HttpError(422, `Malformed multipart body: ${error.message}`)));
    ctx.req.pipe(parser);
  });
  if (refused) throw refused;
  return fields;
}
