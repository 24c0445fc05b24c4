import { PassThrough } from 'node:stream';
import { Router } from '@koa/router';
import type { Db } from '../../db/connection';
import type { Logger } from '../../lib/logger';
import type { NotificationHub } from '../../lib/notifications/notificationHub';
import { authenticationEnded } from '../../services/identity';
import {
  countUnreadNotifications,
  followNotifications,
  listUserNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  NOTIFICATIONS_PER_READ,
} from '../../services/notifications';
import { mount } from '../routeSpec';
import type { ApiState } from '../state';
import { presentNotification } from '../presenters/notification';
import { notificationRoutes } from '../specs/notifications';

/** The spec's keepalive and polling cycle of the notification stream. */
export const STREAM_CYCLE_MS = 3000;

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export function createNotificationsRouter(deps: { db: Db; hub: NotificationHub; logger: Logger }): Router<ApiState> {
  const router = new Router<ApiState>();

  mount(router, notificationRoutes.list, async (ctx) => {
    const { query } = ctx.state.input;
    const { rows, total } = await listUserNotifications(deps.db, ctx.state.user, {
      limit: query.limit,
      offset: query.offset,
      unreadOnly: query.unread_only,
      datasetId: query.dataset_id,
    });
    ctx.body = { notifications: rows.map(presentNotification), total, has_more: query.offset + rows.length < total };
  });

  mount(router, notificationRoutes.unreadCount, async (ctx) => {
    ctx.body = { count: await countUnreadNotifications(deps.db, ctx.state.user, ctx.state.input.query.dataset_id) };
  });

  mount(router, notificationRoutes.readAll, async (ctx) => {
    ctx.body = { ok: true, count: await markAllNotificationsRead(deps.db, ctx.state.user, ctx.state.input.query.dataset_id) };
  });

  mount(router, notificationRoutes.read, async (ctx) => {
    await markNotificationRead(deps.db, ctx.state.user, ctx.state.input.params.notification_id);
    ctx.body = { ok: true };
  });

  /**
   * Server-Sent Events: `notification` for each new notification, `ping` every cycle, `error` when
   * a poll fails (the stream stays open). New rows are found by a poll every cycle, and at once
   * when Postgres NOTIFY wakes the stream; no connection is held between polls. Each cycle also
   * checks what admitted the caller: once the token or session expires, the key is revoked or the
   * session ends, a last `error` (with `closed: true`) names why and the stream closes.
   */
  mount(router, notificationRoutes.stream, async (ctx) => {
    const { user, authentication } = ctx.state;
    const feed = await followNotifications(deps.db, user, ctx.state.input.query.dataset_id);

    const stream = new PassThrough();
    const send = (text: string) => {
      if (!stream.writableEnded) stream.write(text);
    };
    let polling = false;
    let again = false;
    const pollWhenDrained = () => {
      if (stream.listenerCount('drain') === 0) stream.once('drain', () => void poll());
    };
    const poll = async () => {
      if (polling) {
        again = true;
        return;
      }
      // A client that does not read: nothing more is read for it until it drains what it was sent
      // (new rows wait in Postgres, behind the stream's cursor), so its buffer stays one page deep.
      if (stream.writableNeedDrain) return pollWhenDrained();
      polling = true;
      try {
        do {
          again = false;
          const rows = await feed.next();
          for (const row of rows) send(sse('notification', presentNotification(row)));
          again ||= rows.length === NOTIFICATIONS_PER_READ;
        } while (again && !stream.writableEnded && !stream.writableNeedDrain);
        if (again && stream.writableNeedDrain) pollWhenDrained();
      } catch (error) {
        deps.logger.warn({ err: error }, 'notification stream poll failed');
        send(sse('error', { detail: 'Could not read notifications; retrying' }));
      } finally {
        polling = false;
      }
    };
    /** False once the caller is no longer admitted (the stream is then closed); a failed check lets the poll report the outage. */
    const stillAdmitted = async (): Promise<boolean> => {
      let ended: string | undefined;
      try {
        ended = await authenticationEnded(deps.db, user, authentication);
      } catch (error) {
        deps.logger.warn({ err: error }, 'notification stream could not check its credentials');
        return true;
      }
      if (!ended) return true;
      send(sse('error', { detail: `${ended}: the stream is closed; reconnect with valid credentials`, closed: true }));
      close();
      return false;
    };
    const timer = setInterval(() => {
      if (!stream.writableNeedDrain) send(sse('ping', {}));
      void stillAdmitted().then((admitted) => (admitted ? poll() : undefined));
    }, STREAM_CYCLE_MS);
    let closed = false;
    let unsubscribe = () => {};
    function close() {
      closed = true;
      clearInterval(timer);
      unsubscribe();
      stream.end();
    }
    // Listening before the subscription is awaited, and a client already gone (it left while we
    // authenticated it) closes at once: either would leave the timer running for good.
    ctx.req.once('close', close);
    stream.once('error', close);
    if (ctx.req.socket.destroyed) close();
    try {
      const subscription = await deps.hub.subscribe(user.id, () => void poll());
      if (closed) subscription();
      else unsubscribe = subscription;
    } catch (error) {
      deps.logger.warn({ err: error }, 'notification stream without LISTEN; polling only');
    }

    ctx.set({ 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    ctx.type = 'text/event-stream';
    // Each event goes out as it is written; a compressor would hold it back until a block filled.
    ctx.compress = false;
    ctx.status = 200;
    ctx.body = stream;
    send(': connected\n\n');
  });

  return router;
}
