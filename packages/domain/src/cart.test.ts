import { describe, expect, it } from 'vitest';
import { addToCart, cartItemsOf, cartTotalCents, changeVariant, coerceQty, EMPTY_CART, parseSavedCart, removeLine, setQty } from './cart.ts';
import { setNamedAmount } from './cart-named-price.ts';
import { CHECKOUT_MESSAGES, MAX_NAMED_PRICE_CENTS } from './pricing.ts';

const tee = { lineId: 'p1', title: 'Tee', image: '/a.png', priceCents: 2500 };
const cap = { lineId: 'p2', title: 'Cap', image: '/b.png', priceCents: 1999 };

describe('coerceQty', () => {
  it.each([
    [2, 2],
    ['3', 3],
    [2.7, 2],
    [-1, 0],
    [0, 0],
    ['x', 0],
    ['', 0],
    [null, 0],
    [undefined, 0],
    [Number.NaN, 0],
    [Infinity, 0],
    [1000, 99],
  ])('%s -> %s', (input, qty) => expect(coerceQty(input)).toBe(qty));
});

describe('cart operations', () => {
  it('adds, increases the same product, changes and removes lines, keeping the total quantity', () => {
    let cart = addToCart(EMPTY_CART, tee);
    cart = addToCart(cart, tee);
    cart = addToCart(cart, cap, 3);
    expect(cart.lines.map((l) => [l.lineId, l.qty])).toEqual([
      ['p1', 2],
      ['p2', 3],
    ]);
    expect(cart.qty).toBe(5);
    expect(cartTotalCents(cart)).toBe(2 * 2500 + 3 * 1999);
    cart = setQty(cart, 'p1', 0);
    expect(cart.lines.map((l) => l.lineId)).toEqual(['p2']);
    cart = setQty(cart, 'p2', '-4');
    expect(cart).toMatchObject({ qty: 0, lines: [] });
    expect(removeLine(addToCart(EMPTY_CART, tee), 'p1').lines).toEqual([]);
  });
});

describe('parseSavedCart', () => {
  it.each([null, '', '{', 'null', '42', '"x"', '{"lines":"nope"}', '[]'])('treats %s as an empty cart', (raw) => {
    expect(parseSavedCart(raw)).toEqual(EMPTY_CART);
  });
  it('keeps good lines and drops broken ones', () => {
    const raw = JSON.stringify({ lines: [tee && { ...tee, qty: 2 }, { lineId: 5 }, null, { ...cap, qty: 0 }, { ...tee, qty: 9 }, { lineId: 'p3', qty: '2', priceCents: 'x' }] });
    const cart = parseSavedCart(raw);
    expect(cart.lines.map((l) => [l.lineId, l.qty])).toEqual([
      ['p1', 2],
      ['p3', 2],
    ]);
    expect(Number.isNaN(cart.lines[1]!.priceCents)).toBe(true);
    expect(cart.qty).toBe(4);
  });
});

describe('carts with variants (issue 15)', () => {
  it('loads a cart saved before variants: its lines are the default variants', () => {
    const old = JSON.stringify({ id: 'cart', qty: 2, url: '/checkout', lines: [{ lineId: 'p1', title: 'Tee', image: '/a.png', priceCents: 2500, qty: 2 }] });
    const cart = parseSavedCart(old);
    expect(cart.lines).toEqual([{ lineId: 'p1', title: 'Tee', image: '/a.png', priceCents: 2500, qty: 2 }]);
    expect(cartItemsOf(cart.lines)).toEqual([{ id: 'p1', qty: 2 }]);
  });

  it('keeps a variant line apart from its product and sends both ids', () => {
    let cart = addToCart(EMPTY_CART, { lineId: 'p1~l', productId: 'p1', variantId: 'p1~l', title: 'Logo Tee - L', image: '', priceCents: 2500 }, 2);
    cart = addToCart(cart, { lineId: 'p1~s', productId: 'p1', variantId: 'p1~s', title: 'Logo Tee - S', image: '', priceCents: 2500 });
    const reloaded = parseSavedCart(JSON.stringify(cart));
    expect(reloaded).toEqual(cart);
    expect(cartItemsOf(reloaded.lines)).toEqual([
      { id: 'p1', variantId: 'p1~l', qty: 2 },
      { id: 'p1', variantId: 'p1~s', qty: 1 },
    ]);
  });
});

describe('changing a line’s variant (issue 29 item 4)', () => {
  const line = (size: string) => ({
    lineId: `p1~${size}`,
    productId: 'p1',
    variantId: `p1~${size}`,
    title: `Logo Tee - ${size.toUpperCase()}`,
    image: '',
    priceCents: size === 'xl' ? 2700 : 2500,
  });
  const cart = addToCart(addToCart(addToCart(EMPTY_CART, line('m'), 2), line('s'), 1), { lineId: 'p2', title: 'LP', image: '', priceCents: 3000 }, 1);
  const sizes = (state: typeof cart) => state.lines.map((entry) => [entry.lineId, entry.qty, entry.priceCents]);

  it.each([
    [
      'to a variant not in the cart, in the line’s place, with its price',
      'p1~m',
      'xl',
      null,
      [
        ['p1~xl', 2, 2700],
        ['p1~s', 1, 2500],
        ['p2', 1, 3000],
      ],
    ],
    [
      'to a variant another line holds: the two join',
      'p1~m',
      's',
      null,
      [
        ['p1~s', 3, 2500],
        ['p2', 1, 3000],
      ],
    ],
    [
      'never above what is left of the new variant',
      'p1~m',
      'xl',
      1,
      [
        ['p1~xl', 1, 2700],
        ['p1~s', 1, 2500],
        ['p2', 1, 3000],
      ],
    ],
    [
      'joined and capped',
      'p1~m',
      's',
      2,
      [
        ['p1~s', 2, 2500],
        ['p2', 1, 3000],
      ],
    ],
    [
      'to a sold-out variant: the line goes',
      'p1~m',
      'xl',
      0,
      [
        ['p1~s', 1, 2500],
        ['p2', 1, 3000],
      ],
    ],
    [
      'to its own variant: nothing changes',
      'p1~m',
      'm',
      null,
      [
        ['p1~m', 2, 2500],
        ['p1~s', 1, 2500],
        ['p2', 1, 3000],
      ],
    ],
    [
      'of a line not in the cart: nothing changes',
      'p9',
      'xl',
      null,
      [
        ['p1~m', 2, 2500],
        ['p1~s', 1, 2500],
        ['p2', 1, 3000],
      ],
    ],
  ] as const)('%s', (_case, lineId, size, max, expected) => {
    const next = changeVariant(cart, lineId, line(size), max);
    expect(sizes(next)).toEqual(expected);
    expect(next.qty).toBe(expected.reduce((sum, [, qty]) => sum + qty, 0));
  });
});

describe('a named price in the cart (issue 28)', () => {
  it('keeps the amount through a save and sends it with the line; a malformed amount is dropped', () => {
    const cart = addToCart(EMPTY_CART, { lineId: 'album-1', title: 'Sines (digital album)', image: '', priceCents: 1234, amountCents: 1234 });
    const saved = parseSavedCart(JSON.stringify(cart));
    expect(cartItemsOf(saved.lines)).toEqual([{ id: 'album-1', qty: 1, amountCents: 1234 }]);
    const broken = parseSavedCart(JSON.stringify({ lines: [{ lineId: 'album-1', title: 'x', image: '', priceCents: 800, qty: 1, amountCents: 12.5 }] }));
    expect(cartItemsOf(broken.lines)).toEqual([{ id: 'album-1', qty: 1 }]);
  });
});

describe('changing a named price in the cart (issue 28, decision 064)', () => {
  const cart = addToCart(addToCart(EMPTY_CART, { lineId: 'track-1', title: 'Pay More (digital track)', image: '', priceCents: 300, amountCents: 300, minimumCents: 150 }), {
    lineId: 'lp-1',
    title: 'Square Waves LP',
    image: '',
    priceCents: 2500,
  });

  it.each([
    [150, 150],
    [275, 275],
    [MAX_NAMED_PRICE_CENTS, MAX_NAMED_PRICE_CENTS],
  ])('takes %i cents: the line, its price and the total follow', (amountCents, expected) => {
    const changed = setNamedAmount(cart, 'track-1', amountCents);
    expect(changed).toEqual({ cart: expect.objectContaining({ qty: 2 }) });
    if (!('cart' in changed)) return;
    expect(changed.cart.lines[0]).toEqual({
      lineId: 'track-1',
      title: 'Pay More (digital track)',
      image: '',
      priceCents: expected,
      amountCents: expected,
      minimumCents: 150,
      qty: 1,
    });
    expect(cartTotalCents(changed.cart)).toBe(expected + 2500);
    expect(cartItemsOf(parseSavedCart(JSON.stringify(changed.cart)).lines)).toEqual([
      { id: 'track-1', qty: 1, amountCents: expected },
      { id: 'lp-1', qty: 1 },
    ]);
  });

  it.each([
    [149, CHECKOUT_MESSAGES.belowMinimum('Pay More (digital track)', 150)],
    [MAX_NAMED_PRICE_CENTS + 1, CHECKOUT_MESSAGES.namedPriceTooHigh],
    [200.5, CHECKOUT_MESSAGES.namedPriceCents],
    [Number.NaN, CHECKOUT_MESSAGES.namedPriceCents],
  ])('refuses %d cents, saying why', (amountCents, message) => {
    expect(setNamedAmount(cart, 'track-1', amountCents)).toEqual({ refused: message });
  });

  it('refuses a new price on a line that was not named (a fixed price) or is not in the cart', () => {
    expect(setNamedAmount(cart, 'lp-1', 3000)).toEqual({ refused: CHECKOUT_MESSAGES.fixedPrice('Square Waves LP') });
    expect(setNamedAmount(cart, 'gone', 3000)).toEqual({ refused: CHECKOUT_MESSAGES.fixedPrice('gone') });
  });

  it('keeps the minimum through a save only with an amount', () => {
    const saved = parseSavedCart(JSON.stringify({ lines: [{ lineId: 'a', title: 'A', image: '', priceCents: 100, qty: 1, minimumCents: 100 }] }));
    expect(saved.lines[0]).not.toHaveProperty('minimumCents');
    expect(parseSavedCart(JSON.stringify(cart)).lines[0]).toMatchObject({ amountCents: 300, minimumCents: 150 });
  });
});

describe('a digital line is one copy (issue 39)', () => {
  const track = { lineId: 'p_track', title: 'Low Tone (digital track)', image: '', priceCents: 150, digital: true as const };
  it('adding it again, setting its quantity or reading it back keeps quantity 1', () => {
    let cart = addToCart(EMPTY_CART, track);
    cart = addToCart(cart, track, 3);
    expect(cart.lines).toEqual([{ ...track, qty: 1 }]);
    expect(setQty(cart, 'p_track', 5).lines[0]!.qty).toBe(1);
    expect(parseSavedCart(JSON.stringify({ lines: [{ ...track, qty: 4 }] })).lines).toEqual([{ ...track, qty: 1 }]);
  });
  it('a physical line still counts up', () => {
    const tee = { lineId: 'p_tee', title: 'Tee', image: '', priceCents: 2000 };
    expect(addToCart(addToCart(EMPTY_CART, tee), tee, 2).lines[0]!.qty).toBe(3);
  });
});
