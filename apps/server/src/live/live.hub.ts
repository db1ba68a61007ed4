import pg from 'pg';
import { LIVE_CHANNEL, type LiveEvent } from './live.publish.ts';
import { warnCleanup } from '../cleanup.ts';

/**
 * One LISTEN connection per server process, fanning committed changes out to this
 * process's subscribers. Reconnects with backoff if the connection drops.
 */
export type LiveListener = (event: LiveEvent) => void;

export interface LiveHub {
  subscribe(listener: LiveListener): () => void;
  /**
   * Called when notifications may have been missed: the LISTEN connection dropped, and
   * changes made until it is back are never heard. Caches built on events drop their copy.
   */
  onMissedEvents(listener: () => void): () => void;
  /** Whether the LISTEN connection is up, so that any committed change will be heard. */
  isListening(): boolean;
  stop(): Promise<void>;
}

export async function startLiveHub(connection: pg.ClientConfig, onError: (error: unknown) => void): Promise<LiveHub> {
  const listeners = new Set<LiveListener>();
  const gapListeners = new Set<() => void>();
  let client: pg.Client | undefined;
  let stopped = false;
  let retryDelay = 250;

  const deliver = (message: pg.Notification) => {
    if (message.channel !== LIVE_CHANNEL || !message.payload) return;
    let event: LiveEvent;
    try {
      event = JSON.parse(message.payload) as LiveEvent;
    } catch {
      return;
    }
    for (const listener of listeners) listener(event);
  };

  async function connect(): Promise<void> {
    const next = new pg.Client(connection);
    next.on('notification', deliver);
    next.on('error', (error) => {
      onError(error);
      void next.end().catch(warnCleanup('closing the failed live-updates connection'));
      if (client === next) {
        client = undefined;
        for (const listener of gapListeners) listener();
      }
      scheduleReconnect();
    });
    await next.connect();
    await next.query(`LISTEN ${LIVE_CHANNEL}`);
    client = next;
    retryDelay = 250;
  }

  function scheduleReconnect() {
    if (stopped) return;
    const delay = retryDelay;
    retryDelay = Math.min(retryDelay * 2, 10_000);
    setTimeout(() => {
      if (!stopped && !client) connect().catch((error: unknown) => (onError(error), scheduleReconnect()));
    }, delay).unref();
  }

  await connect();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onMissedEvents(listener) {
      gapListeners.add(listener);
      return () => gapListeners.delete(listener);
    },
    isListening: () => client !== undefined && !stopped,
    async stop() {
      stopped = true;
      listeners.clear();
      gapListeners.clear();
      await client?.end().catch(warnCleanup('closing the live-updates connection'));
    },
  };
}
