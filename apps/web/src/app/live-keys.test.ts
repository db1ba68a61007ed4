import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { LIVE_TOPICS, type LiveTopicName } from '@storefront/sdk/live.ts';
import { accountProfileQueryOptions, deletionSummaryQueryOptions } from '../features/accounts/api/account.ts';
import { activityQueryOptions } from '../features/admin/api/admin-activity.ts';
import { adminsQueryOptions } from '../features/admin/api/admins.ts';
import { allProductsQueryOptions } from '../features/admin/api/console-products.ts';
import { categoriesQueryOptions } from '../lib/categories.ts';
import { orderDetailQueryOptions } from '../features/admin/api/get-order.ts';
import { openOrdersQueryOptions } from '../features/admin/api/list-open-orders.ts';
import { deskOrdersQueryOptions } from '../features/admin/api/list-orders.ts';
import { salesOverviewQueryOptions } from '../features/admin/api/sales-overview.ts';
import { productQueryOptions } from '../features/catalog/api/get-product.ts';
import { productsQueryOptions } from '../features/catalog/api/list-products.ts';
import { artistQueryOptions, artistsQueryOptions } from '../features/roster/api/roster.ts';
import { followsQueryOptions, productArtistsQueryOptions } from '../ui/follows/api/follows.ts';
import { consentQueryOptions } from '../ui/follows/api/news.ts';
import { wishlistQueryOptions } from '../ui/wishlist/wishlist-api.ts';
import { rosterQueryOptions } from '../features/admin/api/roster.ts';
import { myOrderQueryOptions } from '../features/checkout/api/get-my-order.ts';
import { savedAddressesQueryOptions } from '../features/checkout/api/saved-addresses.ts';
import { quoteQueryOptions } from '../features/checkout/api/quote-checkout.ts';
import { pageQueryOptions } from '../features/content/api/get-page.ts';
import { historyQueryOptions } from '../features/content/api/list-history.ts';
import { myOrdersQueryOptions } from '../features/orders/api/list-my-orders.ts';
import { datQueryOptions } from '../features/wallet/api/get-dat.ts';
import { walletQueryOptions } from '../features/wallet/api/get-wallet.ts';
import { walletHistoryQueryOptions } from '../features/wallet/api/list-wallet-history.ts';
import { cashoutQueryOptions } from '../features/wallet/api/payouts.ts';
import { LIVE_QUERY_KEYS, refreshTopic } from '../lib/live.ts';
import { meQueryOptions } from '../lib/session.ts';
import { siteQueryOptions } from '../lib/site.ts';

/**
 * Issue 14.5: live refresh by contract. Every query the app shows, from its real options
 * factory, with the live topics whose events must refetch it (spec section 7, "Live").
 * A new query that shows live data belongs here; a renamed key fails this test instead
 * of silently missing live updates.
 */
const QUERIES: { name: string; queryKey: readonly unknown[]; topics: LiveTopicName[] }[] = [
  { name: 'the shop', queryKey: productsQueryOptions().queryKey, topics: ['products'] },
  { name: 'a searched shop category', queryKey: productsQueryOptions({ q: 'tee', category: 'merch', artist: '' }).queryKey, topics: ['products'] },
  { name: 'an artist’s products in the shop', queryKey: productsQueryOptions({ q: '', category: '', artist: 'night-owls' }).queryKey, topics: ['products'] },
  // The roster (decision 070): an artist's page and the list follow their merch; the console's tab another admin's change.
  { name: 'an artist’s page', queryKey: artistQueryOptions('night-owls').queryKey, topics: ['products'] },
  { name: 'the artists', queryKey: artistsQueryOptions().queryKey, topics: ['products'] },
  { name: 'the console’s roster', queryKey: rosterQueryOptions().queryKey, topics: ['products', 'admin'] },
  { name: 'the console’s products', queryKey: allProductsQueryOptions().queryKey, topics: ['products'] },
  // Categories (decision 046): the shop's filter, the forms and the console's Categories tab.
  { name: 'the categories', queryKey: categoriesQueryOptions().queryKey, topics: ['products'] },
  { name: 'a product page', queryKey: productQueryOptions('p_1').queryKey, topics: ['products'] },
  // The quote re-prices with the products and applies the wallet.
  { name: 'the checkout quote', queryKey: quoteQueryOptions({ items: [{ id: 'p_1', qty: 1 }], useWallet: true }).queryKey, topics: ['products', 'wallet'] },
  { name: 'the signed-in user', queryKey: meQueryOptions().queryKey, topics: ['profile'] },
  { name: 'the account page’s profile', queryKey: accountProfileQueryOptions().queryKey, topics: ['profile'] },
  // A follow in another tab (decision 074): every follow button and /account's list.
  { name: 'the fan’s follows', queryKey: followsQueryOptions().queryKey, topics: ['profile'] },
  { name: 'the fan’s consent', queryKey: consentQueryOptions().queryKey, topics: ['profile'] },
  // A heart in another tab, and an item's state after a restock (decision 076).
  { name: 'the fan’s wishlist', queryKey: wishlistQueryOptions().queryKey, topics: ['profile', 'products'] },
  { name: 'a product’s artists', queryKey: productArtistsQueryOptions('p_1').queryKey, topics: ['products'] },
  // What deleting the account gives up: its wallet credit and its orders.
  { name: 'the deletion summary', queryKey: deletionSummaryQueryOptions().queryKey, topics: ['wallet', 'orders'] },
  { name: 'the wallet', queryKey: walletQueryOptions().queryKey, topics: ['wallet'] },
  { name: 'a DAT page', queryKey: datQueryOptions('dat_1').queryKey, topics: ['wallet'] },
  { name: 'cash-out', queryKey: cashoutQueryOptions().queryKey, topics: ['wallet'] },
  { name: 'the wallet history', queryKey: walletHistoryQueryOptions().queryKey, topics: ['wallet'] },
  { name: 'My Orders', queryKey: myOrdersQueryOptions().queryKey, topics: ['orders'] },
  { name: 'an order confirmation', queryKey: myOrderQueryOptions('pi_1').queryKey, topics: ['orders'] },
  // A new order may have saved its address.
  { name: 'saved addresses', queryKey: savedAddressesQueryOptions().queryKey, topics: ['orders'] },
  { name: 'View Orders', queryKey: openOrdersQueryOptions().queryKey, topics: ['all-orders'] },
  // The order desk (issue 16): a refund or shipment by another admin shows in its lists and open order.
  { name: 'the order desk', queryKey: deskOrdersQueryOptions('unfulfilled', '').queryKey, topics: ['all-orders'] },
  { name: 'a searched order desk', queryKey: deskOrdersQueryOptions('refunded', 'ana').queryKey, topics: ['all-orders'] },
  { name: 'an order on the desk', queryKey: orderDetailQueryOptions('o_1').queryKey, topics: ['all-orders'] },
  { name: 'the sales overview', queryKey: salesOverviewQueryOptions({ days: 30 }).queryKey, topics: ['all-orders'] },
  // Every audited action (issue 18): another admin's change shows in the open lists.
  { name: 'the admins', queryKey: adminsQueryOptions().queryKey, topics: ['admin'] },
  { name: 'the console activity', queryKey: activityQueryOptions().queryKey, topics: ['admin'] },
  // Content the label edits in the console (issue 18).
  { name: 'the home page', queryKey: pageQueryOptions('home').queryKey, topics: ['content'] },
  { name: 'the about page', queryKey: pageQueryOptions('about').queryKey, topics: ['content'] },
  { name: 'the privacy policy', queryKey: pageQueryOptions('privacy-policy').queryKey, topics: ['content'] },
  { name: 'the history', queryKey: historyQueryOptions().queryKey, topics: ['content'] },
  // The Contact page's email and the signup form's blocked domains.
  { name: 'the site info', queryKey: siteQueryOptions().queryKey, topics: ['content'] },
];

/** The queries a topic's event marks for refetching, through the app's own refreshTopic. */
async function refreshedBy(topic: LiveTopicName): Promise<string[]> {
  const client = new QueryClient();
  for (const query of QUERIES) client.setQueryData(query.queryKey, { cached: true });
  await refreshTopic(client, topic);
  return QUERIES.filter((query) => client.getQueryState(query.queryKey)?.isInvalidated).map((query) => query.name);
}

describe('live topics and the queries they refresh', () => {
  it('names every topic the server announces, and no other', () => {
    expect(Object.keys(LIVE_QUERY_KEYS).sort()).toEqual([...LIVE_TOPICS].sort());
  });

  // A drop event carries its figures (decision 066): the drop page reads them from the event, nothing is refetched.
  it('drop refreshes nothing', async () => {
    expect(await refreshedBy('drop')).toEqual([]);
  });

  it.each([...LIVE_TOPICS].filter((topic) => topic !== 'drop'))('%s refreshes exactly the queries that show its data', async (topic) => {
    const expected = QUERIES.filter((query) => query.topics.includes(topic)).map((query) => query.name);
    expect(expected.length).toBeGreaterThan(0);
    expect(await refreshedBy(topic)).toEqual(expected);
  });

  it('every key a topic refreshes is one a real factory produces', () => {
    const isPrefix = (prefix: readonly unknown[], key: readonly unknown[]) =>
      prefix.length <= key.length && prefix.every((part, index) => JSON.stringify(part) === JSON.stringify(key[index]));
    for (const [topic, keys] of Object.entries(LIVE_QUERY_KEYS)) {
      for (const key of keys) {
        expect(
          QUERIES.some((query) => isPrefix(key, query.queryKey)),
          `${topic}: ${JSON.stringify(key)}`,
        ).toBe(true);
      }
    }
  });
});
