import type { Context } from 'koa';
import { API_PREFIX } from '../openapiDocument';

/** Answers 202 with the spec's empty body, naming the started task in Location (api/specs/acceptedTask.ts). */
export function answerAcceptedTask(ctx: Context, taskId: string): void {
  ctx.status = 202;
  ctx.set('Location', `${API_PREFIX}/tasks/${taskId}`);
  ctx.body = ''; // the spec's empty body (null would turn the status into 204)
}
