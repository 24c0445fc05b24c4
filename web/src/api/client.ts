import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type Dataset = Schemas['Dataset'];
export type Task = Schemas['Task'];
export type Snapshot = Schemas['Snapshot'];
export type Health = Schemas['Health'];
export type TaskType = Task['task_type'];
export type TaskStatus = Task['status'];
/** What Explore and visual search look at: whole images, or the objects found in them. */
export type EntityType = Schemas['Cluster']['type'];
/** A box in an image as fractions of its width and height (the API's bounding_box). */
export type Box = NonNullable<Schemas['Preview']['bounding_box']>;

/** Every call goes to this origin's API; the session cookie (when auth is on) rides along. */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

/** An answer of the API other than 2xx, carrying its `{detail}` text. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

/** The API's `{detail}`, or a line naming the status when the body is not one. */
export function detailOf(status: number, body: unknown): string {
  if (body && typeof body === 'object' && 'detail' in body && typeof body.detail === 'string') return body.detail;
  return `The API answered ${status}`;
}

/** The data of an openapi-fetch answer, or an ApiError with the API's detail: what TanStack Query wants. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok) return result.data as T;
  throw new ApiError(result.response.status, detailOf(result.response.status, result.error));
}
