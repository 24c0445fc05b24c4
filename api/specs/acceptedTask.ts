import type { SuccessResponse } from '../routeSpec';

/**
 * The 202 of a contract route that starts a task: the contract gives it an empty body, so the task is named in the
 * Location header (api/routes/acceptedTask.ts), a status monitor of the accepted request.
 */
export const acceptedTask: SuccessResponse = {
  description: 'Accepted (empty body); the Location header names the task it started',
  headers: { Location: '/api/v1/tasks/{task_id} of the task the request started: GET it to follow the task' },
};
