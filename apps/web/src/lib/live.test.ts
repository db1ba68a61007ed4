import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { productListKeys } from './query-keys.ts';
import { refreshTopic } from './live.ts';

/** A server whose answers the test releases one at a time: each fetch reads the list as it is when it starts. */
function fakeServer() {
  let products = ['B', 'A'];
  const pending: (() => void)[] = [];
  return {
    release(name: string) {
      products = [name, ...products];
    },
    fetches: () => pending.length,
    answerNext() {
      pending.shift()?.();
    },
    queryFn: () => {
      const read = [...products];
      return new Promise<string[]>((resolve) => pending.push(() => resolve(read)));
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('refreshTopic', () => {
  // The interleaving behind the console-products failure in CI: the console's list mounts and
  // starts its first fetch, which reads the products; the label releases C; C's event arrives
  // while that fetch is still on its way. TanStack Query joins a first fetch on invalidation
  // (it restarts a running fetch only when the query has data), so the list kept [B, A].
  it('an event during a query first fetch refetches after it, so the change is shown', async () => {
    const server = fakeServer();
    const client = new QueryClient();
    const observer = new QueryObserver(client, { queryKey: productListKeys.console, queryFn: server.queryFn, retry: false });
    const shown: (string[] | undefined)[] = [];
    const unsubscribe = observer.subscribe((result) => shown.push(result.data));
    await settle();
    expect(server.fetches()).toBe(1);

    server.release('C');
    const refreshed = refreshTopic(client, 'products');
    await settle();
    server.answerNext(); // the first fetch answers with what it read: [B, A] (cancelled, so never shown)
    await settle();
    expect(server.fetches()).toBe(1); // the refetch, started after the event
    server.answerNext();
    await refreshed;
    await settle();

    expect(observer.getCurrentResult().data).toEqual(['C', 'B', 'A']);
    expect(shown.filter(Boolean)).toEqual([['C', 'B', 'A']]);
    unsubscribe();
  });

  it('an event during a refetch of shown data restarts it (the data stays on screen meanwhile)', async () => {
    const server = fakeServer();
    const client = new QueryClient();
    const observer = new QueryObserver(client, { queryKey: productListKeys.console, queryFn: server.queryFn, retry: false });
    const unsubscribe = observer.subscribe(() => {});
    await settle();
    server.answerNext();
    await settle();
    expect(observer.getCurrentResult().data).toEqual(['B', 'A']);

    void observer.refetch();
    await settle();
    server.release('C');
    const refreshed = refreshTopic(client, 'products');
    await settle();
    expect(observer.getCurrentResult().data).toEqual(['B', 'A']);
    server.answerNext();
    server.answerNext();
    await refreshed;
    await settle();
    expect(observer.getCurrentResult().data).toEqual(['C', 'B', 'A']);
    unsubscribe();
  });
});
