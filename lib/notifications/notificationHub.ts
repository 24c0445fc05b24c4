import { EventEmitter } from 'node:events';
import { Client } from 'pg';

const FIRST_RETRY_MS = 1000;
const LONGEST_RETRY_MS = 30_000;

/**
 * One LISTEN connection per process fans Postgres `notifications` events out to the open streams
 * of each user, so a hundred streams cost one connection, not a hundred. A lost connection is
 * opened again (1 s doubling to 30 s) while anyone listens, and every listener is woken once it is
 * back, for what was inserted meanwhile.
 */
export function createNotificationHub(databaseUrl: string, onError: (error: Error) => void) {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let client: Client | undefined;
  let connecting: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
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
      if (client === listener) client = undefined;
      listener.end().catch(() => undefined);
      reconnectLater(FIRST_RETRY_MS);
    });
    try {
      await listener.connect();
      await listener.query('LISTEN notifications');
    } catch (error) {
      await listener.end().catch(() => undefined);
      throw error;
    }
    if (closed) {
      await listener.end().catch(() => undefined);
      return;
    }
    client = listener;
  }

  function ensureConnected(): Promise<void> {
    connecting ??= connect().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  function reconnectLater(delayMs: number): void {
    if (closed || retry || events.eventNames().length === 0) return;
    retry = setTimeout(() => {
      retry = undefined;
      if (closed || client) return;
      ensureConnected().then(
        () => {
          for (const userId of events.eventNames()) events.emit(userId);
        },
        (error: Error) => {
          onError(error);
          reconnectLater(Math.min(delayMs * 2, LONGEST_RETRY_MS));
        },
      );
    }, delayMs);
    retry.unref();
  }

  return {
    /** Calls `wake` whenever a notification for `userId` is inserted; returns the unsubscribe. */
    async subscribe(userId: string, wake: () => void): Promise<() => void> {
      events.on(userId, wake);
      if (!client && !closed) {
        // Without LISTEN the streams still poll every cycle; the hub keeps trying to listen.
        await ensureConnected().catch((error: Error) => {
          onError(error);
          reconnectLater(FIRST_RETRY_MS);
        });
      }
      return () => events.off(userId, wake);
    },
    async close(): Promise<void> {
      closed = true;
      clearTimeout(retry);
      events.removeAllListeners();
      await connecting?.catch(() => undefined);
      await client?.end().catch(() => undefined);
    },
  };
}

export type NotificationHub = ReturnType<typeof createNotificationHub>;
