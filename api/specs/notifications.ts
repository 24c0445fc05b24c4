import { z } from 'zod';
import { defineRoute } from '../routeSpec';
import { booleanParam } from './common';
import { notificationSchema } from '../presenters/notification';

const datasetFilter = z.object({ dataset_id: z.uuid('dataset_id must be a UUID').optional() });
const listQuery = datasetFilter.extend({
  limit: z.coerce.number().int('limit must be an integer').min(1, 'limit must be between 1 and 100').max(100, 'limit must be between 1 and 100').default(20),
  offset: z.coerce.number().int('offset must be an integer').min(0, 'offset must be 0 or more').default(0),
  unread_only: booleanParam('unread_only').default(false),
});
const idParams = z.object({ notification_id: z.uuid('notification_id must be a UUID') });

export const notificationRoutes = {
  list: defineRoute({
    method: 'get',
    path: '/notifications',
    tag: 'notifications',
    summary: "The caller's notifications, newest first",
    auth: 'user',
    request: { query: listQuery },
    responses: {
      200: {
        description: 'Page',
        schema: z.object({ notifications: z.array(notificationSchema), total: z.number().int(), has_more: z.boolean() }),
      },
    },
  }),
  unreadCount: defineRoute({
    method: 'get',
    path: '/notifications/unread-count',
    tag: 'notifications',
    summary: 'Number of unread notifications',
    auth: 'user',
    request: { query: datasetFilter },
    responses: { 200: { description: 'Count', schema: z.object({ count: z.number().int() }) } },
  }),
  readAll: defineRoute({
    method: 'post',
    path: '/notifications/read-all',
    tag: 'notifications',
    summary: 'Mark all (of a dataset) read',
    auth: 'user',
    request: { query: datasetFilter },
    responses: { 200: { description: 'Marked', schema: z.object({ ok: z.literal(true), count: z.number().int() }) } },
  }),
  read: defineRoute({
    method: 'post',
    path: '/notifications/:notification_id/read',
    tag: 'notifications',
    summary: 'Mark one notification read',
    auth: 'user',
    request: { params: idParams },
    responses: { 200: { description: 'Marked', schema: z.object({ ok: z.literal(true) }) } },
    errors: [[404, 'Missing, foreign or already read']],
  }),
  stream: defineRoute({
    method: 'get',
    path: '/notifications/stream',
    tag: 'notifications',
    summary: 'Server-Sent Events: notification, ping every 3 s, error',
    description:
      'Events: `notification` (data: a Notification) for each new notification, `ping` every 3 s, `error` (data: {detail}) when a poll fails; the stream stays open. ' +
      'When the token or session that opened the stream expires, its API key is revoked or expires, the session ends or the user is disabled, the stream closes at the next keepalive after a last `error` (data: {detail, closed: true}) naming why; reconnect with valid credentials.',
    auth: 'user',
    request: { query: datasetFilter },
    responses: { 200: { description: 'Event stream', contentType: 'text/event-stream', schema: z.string() } },
  }),
};
