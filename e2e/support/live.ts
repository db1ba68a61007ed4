/**
 * The shop's live stream, read by the test (not a page): to know that the server has heard
 * a change. A page rendered after that carries a live position past the change, so its own
 * stream does not replay it (a page rendered before would, and refetch what it shows).
 */
export interface LiveListener {
  /** Resolves once a 'products' event naming `productId` has arrived. */
  productEvent(productId: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens /api/live for the products topic and resolves once the server says it is ready (subscribed). */
export async function listenLive(baseURL: string): Promise<LiveListener> {
  const abort = new AbortController();
  const response = await fetch(new URL('/api/live?topics=products', baseURL), { signal: abort.signal, headers: { accept: 'text/event-stream' } });
  if (!response.ok || !response.body) throw new Error(`/api/live answered ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  let waiters: (() => void)[] = [];
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += value;
      for (const waiter of waiters) waiter();
    }
  })().catch(() => undefined);
  const until = async (seen: () => boolean, what: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!seen()) {
      if (Date.now() > deadline) throw new Error(`The live stream did not carry ${what} within ${timeoutMs} ms.`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      waiters = [];
    }
  };
  await until(() => text.includes('event: ready'), 'its ready event', 10_000);
  return {
    productEvent: (productId, timeoutMs = 10_000) => until(() => text.includes(`"id":"${productId}"`), `a products event for ${productId}`, timeoutMs),
    close() {
      abort.abort();
      void pump;
    },
  };
}
