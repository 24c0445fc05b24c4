import { PassThrough } from 'node:stream';
import { Router } from '@koa/router';
import { z } from 'zod';
import type { Db } from '../../db/connection';
import {
  countUnread,
  listNotifications,
  markAllRead,
  markRead,
  latestNotificationSeq,
  notificationsAfter,
  type NotificationRow,
} from '../../db/repositories/notifications';
import type { Logger } from '../../lib/logger';
import type { NotificationHub } from '../../lib/notifications/notificationHub';
import { HttpError } from '../errors';
import { validate } from '../middleware/validate';
import { isoTime } from '../presenters/time';

/** The spec's keepalive and polling cycle of the notification stream. */
export const STREAM_CYCLE_MS = 3000;

const booleanParam = z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).transform((v) => v === 'true' || v === '1');
const datasetFilter = z.object({ dataset_id: z.uuid('dataset_id must be a UUID').optional() });
const listQuery = datasetFilter.extend({
  limit: z.coerce.number().int('limit must be an integer').min(1, 'limit must be between 1 and 100').max(100, 'limit must be between 1 and 100').default(20),
  offset: z.coerce.number().int('offset must be an integer').min(0, 'offset must be 0 or more').default(0),
  unread_only: booleanParam.default(false),
});
const idParams = z.object({ notification_id: z.uuid('notification_id must be a UUID') });

export function presentNotification(row: NotificationRow) {
  return {
    id: row.id,
    user_id: row.user_id,
    entity_type: row.entity_type,
    entity_id: row.entity_id,
    title: row.title,
    message: row.message,
    metadata: row.metadata,
    dataset_id: row.dataset_id,
    created_at: isoTime(row.created_at),
    read_at: isoTime(row.read_at),
  };
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export function createNotificationsRouter(deps: { db: Db; hub: NotificationHub; logger: Logger }): Router {
  const router = new Router({ prefix: '/notifications' });

  router.get('/', validate({ query: listQuery }), async (ctx) => {
    const { query } = ctx.state.input as { query: z.output<typeof listQuery> };
    const { rows, total } = await listNotifications(deps.db, ctx.state.user.id, {
      limit: query.limit,
      offset: query.offset,
      unreadOnly: query.unread_only,
      datasetId: query.dataset_id,
    });
    ctx.body = { notifications: rows.map(presentNotification), total, has_more: query.offset + rows.length < total };
  });

  router.get('/unread-count', validate({ query: datasetFilter }), async (ctx) => {
    const { query } = ctx.state.input as { query: z.output<typeof datasetFilter> };
    ctx.body = { count: await countUnread(deps.db, ctx.state.user.id, query.dataset_id) };
  });

  router.post('/read-all', validate({ query: datasetFilter }), async (ctx) => {
    const { query } = ctx.state.input as { query: z.output<typeof datasetFilter> };
    ctx.body = { ok: true, count: await markAllRead(deps.db, ctx.state.user.id, query.dataset_id) };
  });

  router.post('/:notification_id/read', validate({ params: idParams }), async (ctx) => {
    const { params } = ctx.state.input as { params: z.output<typeof idParams> };
    if (!(await markRead(deps.db, ctx.state.user.id, params.notification_id))) {
      throw new HttpError(404, 'Notification not found or already read');
    }
    ctx.body = { ok: true };
  });

  /**
   * Server-Sent Events: `notification` for each new notification, `ping` every cycle, `error` when
   * a poll fails (the stream stays open). New rows are found by a poll every cycle, and at once
   * when Postgres NOTIFY wakes the stream; no connection is held between polls.
   */
  router.get('/stream', validate({ query: datasetFilter }), async (ctx) => {
    const { query } = ctx.state.input as { query: z.output<typeof datasetFilter> };
    const userId: string = ctx.state.user.id;
    let cursor = await latestNotificationSeq(deps.db);

    const stream = new PassThrough();
    let polling = false;
    let again = false;
    const poll = async () => {
      if (polling) {
        again = true;
        return;
      }
      polling = true;
      try {
        do {
          again = false;
          const fresh = await notificationsAfter(deps.db, userId, cursor, query.dataset_id);
          for (const row of fresh) {
            stream.write(sse('notification', presentNotification(row)));
            cursor = row.seq;
          }
        } while (again);
      } catch (error) {
        deps.logger.warn({ err: error }, 'notification stream poll failed');
        stream.write(sse('error', { detail: 'Could not read notifications; retrying' }));
      } finally {
        polling = false;
      }
    };
    const timer = setInterval(() => {
      stream.write(sse('ping', {}));
      void poll();
    }, STREAM_CYCLE_MS);
    let unsubscribe = () => {};
    try {
      unsubscribe = await deps.hub.subscribe(userId, () => void poll());
    } catch (error) {
      deps.logger.warn({ err: error }, 'notification stream without LISTEN; polling only');
    }
    const close = () => {
      clearInterval(timer);
      unsubscribe();
      stream.end();
    };
    ctx.req.once('close', close);
    stream.once('error', close);

    ctx.set({ 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    ctx.type = 'text/event-stream';
    ctx.status = 200;
    ctx.body = stream;
    stream.write(': connected\n\n');
  });

  return router;
}
