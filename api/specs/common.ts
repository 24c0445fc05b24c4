import { z } from 'zod';

export const datasetIdParams = z.object({ dataset_id: z.uuid('dataset_id must be a UUID') });

/** A file part of a multipart form (documentation only: uploads are streamed by api/uploads.ts). */
export const filePart = z.string().meta({ format: 'binary' });

/** The body of every error response. */
export const errorSchema = z.object({ detail: z.string() }).meta({ id: 'Error' });

/** `{"task_id": ...}` of a request that started a task. */
export const startedTask = z.object({ task_id: z.uuid() });
