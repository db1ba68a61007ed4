import { useQueryClient, type Query, type QueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { LIVE_TOPICS, subscribeLive, type LiveEventData, type LiveTopicName } from '@storefront/sdk/live.ts';
import { LIVE_POSITION_ATTRIBUTE } from '@storefront/domain/page-data.ts';
import {
  accountKeys,
  checkoutQuoteKeys,
  consoleKeys,
  deskOrderKeys,
  historyKeys,
  deskOrdersKeys,
  meKeys,
  myOrderKeys,
  myOrdersKeys,
  openOrdersKeys,
  pageKeys,
  productKeys,
  productListKeys,
  rosterKeys,
  siteKeys,
  walletKeys,
} from './query-keys.ts';
import { useSession } from './session.ts';

/**
 * Query keys by live topic: an event refetches what it names (spec section 7, "Live").
 * Built from lib/query-keys.ts, the builders the query options factories use;
 * app/live-keys.test.ts checks every topic against the real factories.
 */
export const LIVE_QUERY_KEYS: Record<LiveTopicName, readonly (readonly unknown[])[]> = {
  // An artist's page lists their releases and merch (decision 070); /wishlist shows each item's state (decision 076).
  products: [productListKeys.all, productKeys.all, rosterKeys.all, accountKeys.wishlist],
  // A follow or unfollow in another tab (decision 074), a heart (decision 076), keeps every button right.
  profile: [meKeys.all, accountKeys.profile, accountKeys.follows, accountKeys.consent, accountKeys.wishlist],
  // The checkout's quote applies the wallet: a grant, hold or release elsewhere re-prices it.
  wallet: [walletKeys.all, checkoutQuoteKeys.all, accountKeys.deletion],
  // A refund or a shipment reaches the buyer's My Orders and order page.
  orders: [myOrdersKeys.all, myOrderKeys.all, accountKeys.deletion],
  // The admins' views: View Orders, the order desk's lists and its open order.
  'all-orders': [openOrdersKeys.all, deskOrdersKeys.all, deskOrderKeys.all],
  // The label edits its pages in the console (issue 18): Home, About, Privacy, History, Contact.
  content: [pageKeys.all, historyKeys.all, siteKeys.all],
  // Another admin's audited action: the console's activity and admins lists.
  admin: [consoleKeys.all, rosterKeys.console],
  // A drop's "now serving" (decision 066): the drop page reads the figure from the event itself, nothing is refetched.
  drop: [],
};

/**
 * Listeners of the 'drop' topic (decision 069): the drop page reads "now serving" from the
 * event itself. `null`: the stream (re)opened without the missed events; read the state again.
 */
const dropListeners = new Set<(data: LiveEventData | null) => void>();

/** Hears every drop event of the app's one live stream; returns the unsubscribe. */
export function onDropEvent(listener: (data: LiveEventData | null) => void): () => void {
  dropListeners.add(listener);
  return () => dropListeners.delete(listener);
}

/** A query's first fetch, still running: an invalidation joins it instead of starting another. */
const inFirstFetch = (query: Query) => query.state.data === undefined && query.state.fetchStatus === 'fetching';

/**
 * Marks every query showing that topic's data stale and refetches the ones on screen.
 *
 * TanStack Query restarts a running fetch on invalidation only when the query already has
 * data; a first fetch is joined, and it may have read before the change (CI: the console's
 * product list, mounting while the label released a product, never showed it). Such a fetch
 * is cancelled, so the refetch reads after the change.
 */
export function refreshTopic(queryClient: QueryClient, topic: LiveTopicName): Promise<void> {
  return Promise.all(
    LIVE_QUERY_KEYS[topic].map(async (queryKey) => {
      await queryClient.cancelQueries({ queryKey, predicate: inFirstFetch });
      await queryClient.invalidateQueries({ queryKey });
    }),
  ).then(() => undefined);
}

/**
 * A server-rendered page's live position (decision 062), for the app's first stream only:
 * its data is as new as that position, so the stream resumes there instead of refetching.
 */
let pagePosition: string | undefined = typeof document === 'undefined' ? undefined : (document.getElementById('root')?.getAttribute(LIVE_POSITION_ATTRIBUTE) ?? undefined);

/** One stream per signed-in state; reopened when the user changes. */
export function useLiveUpdates() {
  const queryClient = useQueryClient();
  const { user, isLoading } = useSession();
  const userId = user?.id ?? null;
  useEffect(() => {
    if (isLoading) return undefined;
    const lastEventId = pagePosition;
    pagePosition = undefined;
    const subscription = subscribeLive({
      lastEventId,
      // A drop's event carries its now serving (decision 066): told to the drop pages listening.
      onEvent: (topic, data) => {
        if (topic === 'drop') for (const listener of dropListeners) listener(data);
        // A stock event's units left (decision 067) are not applied here yet: applied while a
        // server-rendered page was still hydrating, they made its first render differ from the
        // server's HTML (React error 418 in the merch spec, full suite). Refetched, as before.
        void refreshTopic(queryClient, topic);
      },
      // Whatever is on screen was fetched before the stream opened: a change committed between
      // that fetch and the server's listening is announced to no one (a console opened while
      // another admin releases a product kept the old list). The first open refetches too, as
      // a reconnect without the missed events does.
      onOpen: () => {
        for (const topic of LIVE_TOPICS) void refreshTopic(queryClient, topic);
        for (const listener of dropListeners) listener(null);
      },
    });
    return () => subscription.close();
  }, [queryClient, userId, isLoading]);
}
