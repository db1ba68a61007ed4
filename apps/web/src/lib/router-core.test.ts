import { describe, expect, it } from 'vitest';
import { matchPath, matchRoutes, resolveTo, shouldHandleClick, type RouteObject } from './router-core.ts';

describe('matchPath', () => {
  it('matches static paths case-insensitively, with or without a trailing slash', () => {
    expect(matchPath('/shop', '/shop')).toEqual({});
    expect(matchPath('/shop', '/Shop/')).toEqual({});
    expect(matchPath('/shop', '/shop/x')).toBeNull();
    expect(matchPath('/shop', '/sho')).toBeNull();
    expect(matchPath('/', '/')).toEqual({});
    expect(matchPath('/', '/home')).toBeNull();
  });

  it('decodes a :param segment and needs it to be there', () => {
    expect(matchPath('/product/:id', '/product/p%20one')).toEqual({ id: 'p one' });
    expect(matchPath('/product/:id', '/product/')).toBeNull();
    expect(matchPath('/product/:id', '/product/a/b')).toBeNull();
    expect(matchPath('/product/:id', '/product/%E0%A4%A')).toEqual({ id: '%E0%A4%A' });
  });

  it('lets * take the rest of the address', () => {
    expect(matchPath('*', '/no/such/page')).toEqual({ '*': 'no/such/page' });
    expect(matchPath('*', '/')).toEqual({ '*': '' });
  });
});

describe('matchRoutes', () => {
  const layout = 'layout';
  const routes: RouteObject[] = [
    {
      element: layout,
      children: [
        { path: '*', element: 'not found' },
        { path: '/shop', element: 'shop' },
        { path: '/product/:id', element: 'product' },
      ],
    },
  ];

  it('returns the layout, then the page, with the page params on both', () => {
    const matches = matchRoutes(routes, '/product/42');
    expect(matches?.map((match) => match.route.element)).toEqual([layout, 'product']);
    expect(matches?.map((match) => match.params)).toEqual([{ id: '42' }, { id: '42' }]);
  });

  it('prefers a page path over *, wherever * is listed', () => {
    expect(matchRoutes(routes, '/shop')?.at(-1)?.route.element).toBe('shop');
    expect(matchRoutes(routes, '/nowhere')?.at(-1)?.route.element).toBe('not found');
  });

  it('matches nothing when no route (and no *) fits', () => {
    expect(matchRoutes([{ path: '/shop', element: 'shop' }], '/home')).toBeNull();
  });
});

describe('resolveTo', () => {
  const here = { pathname: '/shop', search: '?q=tee', hash: '#top' };

  it('keeps absolute addresses and resolves relative ones from the current page', () => {
    expect(resolveTo('/wallet', here)).toBe('/wallet');
    expect(resolveTo('/order-confirmation?order=o_1', here)).toBe('/order-confirmation?order=o_1');
    expect(resolveTo('?q=cap', here)).toBe('/shop?q=cap');
    expect(resolveTo('http://127.0.0.1:3000/my-orders#o_1', 'http://127.0.0.1:3000/shop')).toBe('/my-orders#o_1');
  });

  it('changes only the parts an object names (a new query keeps the page, drops the fragment)', () => {
    expect(resolveTo({ search: '?category=merch' }, here)).toBe('/shop?category=merch');
    expect(resolveTo({ search: 'category=merch' }, here)).toBe('/shop?category=merch');
    expect(resolveTo({ search: '' }, here)).toBe('/shop');
    expect(resolveTo({ pathname: '/home', hash: 'about' }, here)).toBe('/home#about');
  });
});

describe('shouldHandleClick', () => {
  const plain = { button: 0, metaKey: false, altKey: false, ctrlKey: false, shiftKey: false, defaultPrevented: false };

  it('handles a plain left click in this tab only', () => {
    expect(shouldHandleClick(plain, undefined)).toBe(true);
    expect(shouldHandleClick(plain, '_self')).toBe(true);
    expect(shouldHandleClick(plain, '_blank')).toBe(false);
    expect(shouldHandleClick({ ...plain, button: 1 }, undefined)).toBe(false);
    expect(shouldHandleClick({ ...plain, ctrlKey: true }, undefined)).toBe(false);
    expect(shouldHandleClick({ ...plain, metaKey: true }, undefined)).toBe(false);
    expect(shouldHandleClick({ ...plain, shiftKey: true }, undefined)).toBe(false);
    expect(shouldHandleClick({ ...plain, defaultPrevented: true }, undefined)).toBe(false);
  });
});
