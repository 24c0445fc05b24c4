import { EventEmitter } from 'node:events';
import { Client } from 'pg';

/**
 * One LISTEN connection per process fans Postgres `notifications` events out to the open streams
 * of each user, so a hundred streams cost one connection, not a hundred.
 */
export function createNotificationHub(databaseUrl: string, onError: (error: Error) => void) {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let client: Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;

  async function connect(): Promise<void> {
    const listener = new Client({ connectionString: databaseUrl });
    listener.on('notification', (message) => {
      try {
        const { user_id: userId } = JSON.parse(message.payload ?? '{}') as { user_id?: string };
        if (userId) events.emit(userId);
      } catch (error) {
        onError(error as Error);
      }
    });
    listener.on('error', (error) => {
      onError(error);
      client = undefined;
      connecting = undefined;
      // Streams keep polling every cycle meanwhile; the next subscriber reconnects.
      listener.end().catch(() => undefined);
    });
    await listener.connect();
    await listener.query('LISTEN notifications');
    client = listener;
  }

  return {
    /** Calls `wake` whenever a notification for `userId` is inserted; returns the unsubscribe. */
    async subscribe(userId: string, wake: () => void): Promise<() => void> {
      if (!client && !closed) {
        connecting ??= connect().catch((error) => {
          connecting = undefined;
          throw error;
        });
        await connecting;
      }
      events.on(userId, wake);
      return () => events.off(userId, wake);
    },
    async close(): Promise<void> {
      closed = true;
      events.removeAllListeners();
      await client?.end().catch(() => undefined);
    },
  };
}

export type NotificationHub = ReturnType<typeof createNotificationHub>;
