import { describe, expect, it, vi } from 'vitest';
import { subscribeLive } from './live.ts';

/** An EventSource stand-in: the test plays the server's events. */
class FakeSource {
  static opened: FakeSource[] = [];
  readonly listeners = new Map<string, ((event: MessageEvent<string>) => void)[]>();
  onerror: ((error: unknown) => void) | null = null;
  closed = false;
  readonly url: string;
  constructor(url: string) {
    this.url = url;
    FakeSource.opened.push(this);
  }
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  emit(type: string, data: unknown, lastEventId = '') {
    for (const listener of this.listeners.get(type) ?? []) listener({ data: JSON.stringify(data), lastEventId } as MessageEvent<string>);
  }
  close() {
    this.closed = true;
  }
}

describe('subscribeLive across reconnects', () => {
  it('reconnects with the last event id and refetches only when the missed events are not replayed', async () => {
    vi.useFakeTimers();
    FakeSource.opened = [];
    const onOpen = vi.fn();
    const onEvent = vi.fn();
    const subscription = subscribeLive({
      baseUrl: 'http://shop.test',
      topics: ['products', 'wallet'],
      onEvent,
      onOpen,
      EventSourceImpl: FakeSource as unknown as typeof EventSource,
    });
    const first = FakeSource.opened[0]!;
    expect(first.url).toBe('http://shop.test/api/live?topics=products,wallet');
    first.emit('ready', { signedIn: true, resumed: false }, 'abc-4');
    first.emit('products', { id: 'p1' }, 'abc-5');
    expect(onOpen).toHaveBeenCalledTimes(1);
    first.onerror?.(new Error('cut'));
    await vi.advanceTimersByTimeAsync(1000);
    const second = FakeSource.opened[1]!;
    expect(second.url).toBe('http://shop.test/api/live?topics=products,wallet&lastEventId=abc-5');
    second.emit('wallet', { id: 'u1' }, 'abc-6');
    second.emit('ready', { signedIn: true, resumed: true }, 'abc-6');
    // Replayed: the event is handled, no full refetch.
    expect(onEvent).toHaveBeenCalledWith('wallet', { id: 'u1' });
    expect(onOpen).toHaveBeenCalledTimes(1);
    second.onerror?.(new Error('cut'));
    await vi.advanceTimersByTimeAsync(1000);
    const third = FakeSource.opened[2]!;
    third.emit('resync', {});
    third.emit('ready', { signedIn: true, resumed: false }, 'zzz-1');
    expect(onOpen).toHaveBeenCalledTimes(2);
    subscription.close();
    vi.useRealTimers();
  });
});
