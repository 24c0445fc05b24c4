import http from 'node:http';
import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app';
import { createDataset } from '../../db/repositories/datasets';
import { insertNotifications, type NewNotification } from '../../db/repositories/notifications';
import { createUser } from '../../db/repositories/users';
import { Workspace } from '../../db/models';
import { eventually } from '../support/media';
import { openStream } from '../support/sse';
import { startTestApi, type TestApi } from '../support/testStack';

describe('notifications: list, count, read, read-all and the SSE stream', () => {
  let api: TestApi;
  let server: http.Server;
  let port: number;
  let datasetId: string;
  let strangerId: string;

  const alert = (userId: string, dataset: string | null, viewName: string): NewNotification => ({
    user_id: userId,
    entity_type: 'saved_view',
    entity_id: '6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11',
    title: '',
    message: null,
    metadata: { view_name: viewName, dataset_name: 'pets', result_count: 3, batch_id: '7c0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11', is_alert: true },
    dataset_id: dataset,
  });

  beforeAll(async () => {
    api = await startTestApi();
    server = http.createServer(createApp(api.deps).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    const workspaceId = (await Workspace.query(api.deps.db).first())!.id;
    datasetId = (await createDataset(api.deps.db, { name: 'pets', ownerId: api.deps.defaultUser.id, workspaceId, status: 'READY' })).id;
    strangerId = (await createUser(api.deps.db, { email: 'stranger@example.com', workspaceId, workspaceRole: 'viewer' })).id;
  });
  afterAll(async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeAllConnections();
    await closed;
    await api.close();
  });

  it("lists, pages, counts and marks read the caller's notifications only", async () => {
    const me = api.deps.defaultUser.id;
    const mine = Array.from({ length: 25 }, (_, i) => alert(me, i % 5 === 0 ? datasetId : null, `view ${i}`));
    await insertNotifications(api.deps.db, mine);
    await insertNotifications(api.deps.db, [alert(strangerId, datasetId, 'theirs')]);

    const first = (await api.request.get('/api/v1/notifications').expect(200)).body;
    expect(first.total).toBe(25);
    expect(first.notifications).toHaveLength(20);
    expect(first.has_more).toBe(true);
    const [newest] = first.notifications;
    expect(Object.keys(newest).sort()).toEqual(
      ['id', 'user_id', 'entity_type', 'entity_id', 'title', 'message', 'metadata', 'dataset_id', 'created_at', 'read_at'].sort(),
    );
    expect(newest).toMatchObject({
      user_id: me, entity_type: 'saved_view', title: '', message: null, read_at: null,
      metadata: { view_name: expect.any(String), dataset_name: 'pets', result_count: 3, batch_id: expect.any(String), is_alert: true },
    });
    expect(newest.created_at).toMatch(/Z$/);
    expect([datasetId, null]).toContain(first.notifications[0].dataset_id);
    const created = first.notifications.map((n: { created_at: string }) => n.created_at);
    expect(created).toEqual([...created].sort().reverse());
    const rest = (await api.request.get('/api/v1/notifications').query({ offset: 20 }).expect(200)).body;
    expect(rest.notifications).toHaveLength(5);
    expect(rest.has_more).toBe(false);
    expect((await api.request.get('/api/v1/notifications').query({ dataset_id: datasetId }).expect(200)).body.total).toBe(5);
    for (const limit of [0, 101, 'x']) await api.request.get('/api/v1/notifications').query({ limit }).expect(422);
    await api.request.get('/api/v1/notifications').query({ unread_only: 'maybe' }).expect(422);

    expect((await api.request.get('/api/v1/notifications/unread-count').expect(200)).body).toEqual({ count: 25 });
    const target = first.notifications[0].id;
    expect((await api.request.post(`/api/v1/notifications/${target}/read`).expect(200)).body).toEqual({ ok: true });
    await api.request.post(`/api/v1/notifications/${target}/read`).expect(404);
    const theirs = (await api.deps.db('notifications').where({ user_id: strangerId }).first()).id;
    await api.request.post(`/api/v1/notifications/${theirs}/read`).expect(404);
    await api.request.post('/api/v1/notifications/6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11/read').expect(404);
    expect((await api.request.get('/api/v1/notifications').query({ unread_only: true }).expect(200)).body.total).toBe(24);
    // As Python's requests spells booleans.
    expect((await api.request.get('/api/v1/notifications').query({ unread_only: 'True' }).expect(200)).body.total).toBe(24);
    expect((await api.request.get('/api/v1/notifications').query({ unread_only: 'False' }).expect(200)).body.total).toBe(25);

    const unreadInDataset = (await api.request.get('/api/v1/notifications/unread-count').query({ dataset_id: datasetId }).expect(200)).body.count;
    expect((await api.request.post('/api/v1/notifications/read-all').query({ dataset_id: datasetId }).expect(200)).body).toEqual({ ok: true, count: unreadInDataset });
    expect((await api.request.post('/api/v1/notifications/read-all').expect(200)).body).toEqual({ ok: true, count: 24 - unreadInDataset });
    expect((await api.request.get('/api/v1/notifications/unread-count').expect(200)).body).toEqual({ count: 0 });
    expect((await api.deps.db('notifications').where({ user_id: strangerId }).whereNull('read_at')).length).toBe(1);
  });

  it('streams a new notification within one cycle, pings every 3 s, and filters by dataset', async () => {
    const all = await openStream(port);
    const onlyDataset = await openStream(port, `?dataset_id=${datasetId}`);
    try {
      await insertNotifications(api.deps.db, [alert(api.deps.defaultUser.id, null, 'fresh'), alert(strangerId, null, 'not for me')]);
      await eventually(async () => all.events.filter((e) => e.event === 'notification'), (n) => n.length >= 1, 3000, 'the notification');
      const [event] = all.events.filter((e) => e.event === 'notification');
      expect(event.data).toMatchObject({ user_id: api.deps.defaultUser.id, metadata: { view_name: 'fresh' }, read_at: null });
      await insertNotifications(api.deps.db, [alert(api.deps.defaultUser.id, datasetId, 'in dataset')]);
      await eventually(async () => onlyDataset.events.filter((e) => e.event === 'notification'), (n) => n.length >= 1, 3000, 'the dataset notification');
      expect(onlyDataset.events.filter((e) => e.event === 'notification').map((e) => (e.data as { metadata: { view_name: string } }).metadata.view_name)).toEqual(['in dataset']);
      await eventually(async () => all.events.filter((e) => e.event === 'ping'), (n) => n.length >= 1, 4000, 'a ping');
      expect(all.events.filter((e) => e.event === 'notification')).toHaveLength(2);
    } finally {
      all.close();
      onlyDataset.close();
    }
  });

  it('serves 100 open streams without exhausting the database pool', async () => {
    const streams = await Promise.all(Array.from({ length: 100 }, () => openStream(port)));
    try {
      // The pool holds 5 connections; requests still get through while the streams stay open.
      expect((await api.request.get('/api/v1/notifications/unread-count').expect(200)).body).toEqual({ count: 2 });
      await insertNotifications(api.deps.db, [alert(api.deps.defaultUser.id, null, 'broadcast')]);
      await eventually(
        async () => streams.filter((s) => s.events.some((e) => e.event === 'notification')).length,
        (n) => n === 100,
        6000,
        'all streams to get the notification',
      );
    } finally {
      for (const stream of streams) stream.close();
    }
  });

  it('reads nothing more for a client that does not read until it drains, then delivers every notification once and in order', async () => {
    let serverSide: net.Socket | undefined;
    const remember = (socket: net.Socket) => (serverSide = socket);
    server.once('connection', remember);
    const slow = await openStream(port);
    try {
      slow.pause();
      const count = 40_000;
      const burst = Array.from({ length: count }, (_, i) => alert(api.deps.defaultUser.id, null, `burst ${i}`));
      for (let i = 0; i < count; i += 5000) await insertNotifications(api.deps.db, burst.slice(i, i + 5000));
      // Two cycles: each would have read another page of rows for the stream.
      await new Promise((resolve) => setTimeout(resolve, 7000));
      const handed = serverSide!.bytesWritten + serverSide!.writableLength;

      slow.resume();
      const received = await eventually(
        async () => slow.events.filter((e) => e.event === 'notification').map((e) => (e.data as { metadata: { view_name: string } }).metadata.view_name),
        (names) => names.length >= count,
        60_000,
        'every notification of the burst',
      );
      expect(received).toEqual(burst.map((notification) => notification.metadata.view_name));
      const payload = slow.events
        .filter((e) => e.event === 'notification')
        .reduce((sum, e) => sum + Buffer.byteLength(`event: notification\ndata: ${JSON.stringify(e.data)}\n\n`), 0);
      expect(handed).toBeLessThan(payload / 2);
    } finally {
      server.off('connection', remember);
      slow.close();
    }
  }, 120_000);

  it('listens again when its LISTEN connection is cut', async () => {
    const listening = () => api.deps.db('pg_stat_activity').where({ query: 'LISTEN notifications', datname: new URL(api.env.DATABASE_URL!).pathname.slice(1) }).pluck('pid');
    const stream = await openStream(port);
    try {
      const [pid] = await eventually(listening, (pids) => pids.length === 1, 5000, 'a LISTEN connection');
      await api.deps.db.raw('SELECT pg_terminate_backend(?)', [pid]);
      const [again] = await eventually(listening, (pids) => pids.length === 1 && pids[0] !== pid, 15_000, 'a new LISTEN connection');
      expect(again).not.toBe(pid);
    } finally {
      stream.close();
    }
  }, 30_000);
});
