/**
 * Live updates from `GET /api/live` (Server-Sent Events). Each event names a topic
 * (products, profile, wallet, orders, all-orders, content, admin, drop) and what changed; the client then
 * refetches, or applies a stock change's units left (decision 067). A dropped stream reconnects with exponential backoff and the id of the last
 * event it got: the server sends what was missed (then `ready` says `resumed`), or `resync`
 * and `ready` without `resumed`, and the client refetches everything (onOpen).
 */
export type LiveTopicName = 'products' | 'profile' | 'wallet' | 'orders' | 'all-orders' | 'content' | 'admin' | 'drop';

/** What an event says: what changed; a stock change the units left per variant (decision 067); a `drop` event the drop's now serving and status (decision 066). */
export interface LiveEventData {
  id: string | null;
  stock?: Record<string, number | null>;
  nowServing?: number;
  status?: string | null;
  /** A started drop's revealed seed and pre-queue size: the page computes its own position (decision 073). */
  seed?: string;
  preQueueCount?: number;
}

export interface LiveSubscription {
  close(): void;
}

export interface LiveOptions {
  baseUrl?: string;
  topics?: LiveTopicName[];
  /**
   * `stock` (decision 067): on a 'products' event of a stock change, the units left of each of
   * the product `id`'s variants (null: unlimited), to apply instead of refetching; absent on
   * any other change (refetch).
   */
  onEvent(topic: LiveTopicName, data: LiveEventData): void;
  /** Called when the stream is opened, and when it is reopened without the missed events: refetch what you show. */
  onOpen?(): void;
  onError?(error: unknown): void;
  /** Where to resume from: the id of the last event the data on screen already reflects (a server-rendered page's). */
  lastEventId?: string;
  /** For tests: the EventSource implementation and the delay function. */
  EventSourceImpl?: typeof EventSource;
}

/** Every topic the server announces. */
export const LIVE_TOPICS: readonly LiveTopicName[] = ['products', 'profile', 'wallet', 'orders', 'all-orders', 'content', 'admin', 'drop'];
const MAX_DELAY_MS = 30_000;

export function reconnectDelay(attempt: number): number {
  return Math.min(MAX_DELAY_MS, 500 * 2 ** Math.max(0, attempt));
}

/** Whether a `ready` event says every missed event was sent again. */
function resumedIn(data: string): boolean {
  try {
    return (JSON.parse(data) as { resumed?: boolean }).resumed === true;
  } catch {
    return false;
  }
}

export function subscribeLive(options: LiveOptions): LiveSubscription {
  const Impl = options.EventSourceImpl ?? globalThis.EventSource;
  const base = `${(options.baseUrl ?? '').replace(/\/$/, '')}/api/live`;
  let lastEventId = options.lastEventId ?? '';
  const url = () => {
    const query = new URLSearchParams();
    if (options.topics?.length) query.set('topics', options.topics.join(','));
    if (lastEventId) query.set('lastEventId', lastEventId);
    const text = query.toString().replaceAll('%2C', ',');
    return text ? `${base}?${text}` : base;
  };
  let source: EventSource | undefined;
  let attempt = 0;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const open = () => {
    if (closed) return;
    source = new Impl(url(), { withCredentials: true });
    source.addEventListener('ready', (event) => {
      attempt = 0;
      const message = event as MessageEvent<string>;
      if (message.lastEventId) lastEventId = message.lastEventId;
      if (!resumedIn(message.data)) options.onOpen?.();
    });
    for (const topic of LIVE_TOPICS) {
      source.addEventListener(topic, (event) => {
        const message = event as MessageEvent<string>;
        if (message.lastEventId) lastEventId = message.lastEventId;
        try {
          options.onEvent(topic, JSON.parse((event as MessageEvent<string>).data) as LiveEventData);
        } catch (error) {
          options.onError?.(error);
        }
      });
    }
    source.onerror = (error) => {
      // Take reconnection into our own hands so it backs off instead of hammering.
      source?.close();
      options.onError?.(error);
      if (closed) return;
      timer = setTimeout(open, reconnectDelay(attempt));
      attempt += 1;
    };
  };
  open();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      source?.close();
    },
  };
}
