import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { applyStock } from './live-stock.ts';
import { productKeys, productListKeys } from './query-keys.ts';

const tee = {
  id: 'p1',
  name: 'Tee',
  variants: [
    { id: 'p1~s', stock: 3 },
    { id: 'p1~m', stock: null },
  ],
};
const lp = { id: 'p2', name: 'LP', variants: [{ id: 'p2', stock: 9 }] };

describe('applyStock (decision 067)', () => {
  it('gives the units left to the product wherever it is cached, leaving other entries as they were', () => {
    const client = new QueryClient();
    const shopKey = productListKeys.shop('', '');
    client.setQueryData(shopKey, { pages: [{ products: [lp, tee], next: null }], pageParams: [null] });
    client.setQueryData(productKeys.one('p1'), tee);
    client.setQueryData(productKeys.one('p2'), lp);
    const lpEntry = client.getQueryData(productKeys.one('p2'));

    applyStock(client, 'p1', { 'p1~s': 0, 'p1~m': null });

    expect(client.getQueryData<typeof tee>(productKeys.one('p1'))!.variants).toEqual([
      { id: 'p1~s', stock: 0 },
      { id: 'p1~m', stock: null },
    ]);
    const shop = client.getQueryData<{ pages: { products: (typeof tee)[] }[] }>(shopKey)!;
    expect(shop.pages[0]!.products[1]!.variants[0]).toEqual({ id: 'p1~s', stock: 0 });
    expect(shop.pages[0]!.products[0]).toBe(lp);
    expect(client.getQueryData(productKeys.one('p2'))).toBe(lpEntry);
    expect(client.getQueryState(productKeys.one('p1'))!.isInvalidated).toBe(false);
  });

  it('marks a cached product whose variants are not those of the event for a refetch instead', () => {
    const client = new QueryClient();
    client.setQueryData(productKeys.one('p1'), tee);
    applyStock(client, 'p1', { 'p1~s': 1, 'p1~m': null, 'p1~l': 4 });
    expect(client.getQueryState(productKeys.one('p1'))!.isInvalidated).toBe(true);
    expect(client.getQueryData<typeof tee>(productKeys.one('p1'))!.variants[0]!.stock).toBe(3);
  });
});
