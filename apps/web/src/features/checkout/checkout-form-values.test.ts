import { describe, expect, it } from 'vitest';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { checkCheckoutForm, emptyShipping, type ContactValues, type ShippingValues } from './checkout-form-values.ts';

const contact: ContactValues = { name: 'Ada Fan', email: 'ada@example.com', phone: '' };
const shipping: ShippingValues = { ...emptyShipping('Ada Fan'), line1: '1 Record Row', city: 'Houston', state: 'TX', postal_code: '77002' };

describe('checkCheckoutForm (spec section 5, Checkout)', () => {
  it.each([
    ['an empty cart comes first', 0, { ...contact, name: '' }, shipping, CHECKOUT_MESSAGES.emptyCart, undefined],
    ['then the full name', 1, { ...contact, name: '   ', email: 'bad' }, shipping, CHECKOUT_MESSAGES.fullName, 'contact.name'],
    ['then the email', 1, { ...contact, email: 'ada@example' }, shipping, CHECKOUT_MESSAGES.email, 'contact.email'],
    ['an email with a space', 1, { ...contact, email: 'ada fan@example.com' }, shipping, CHECKOUT_MESSAGES.email, 'contact.email'],
    ['then the street', 1, contact, { ...shipping, line1: ' ' }, 'Please enter the street address.', 'shipping.line1'],
    ['then the city', 1, contact, { ...shipping, city: '' }, 'Please enter the city.', 'shipping.city'],
    ['then the postal code', 1, contact, { ...shipping, postal_code: '' }, 'Please enter the postal code.', 'shipping.postal_code'],
    ['then the US state', 1, contact, { ...shipping, state: '' }, 'Please enter the state as its code (for example AL).', 'shipping.state'],
    [
      'then the postal code of the country',
      1,
      contact,
      { ...shipping, country: 'GB' },
      'Please enter a postal code of United Kingdom (for example N1 9GU).',
      'shipping.postal_code',
    ],
  ] as const)('%s', (_case, itemCount, contactValues, shippingValues, message, field) => {
    expect(checkCheckoutForm(itemCount, contactValues, shippingValues)).toEqual({ ok: false, message, field });
  });

  it('accepts a form without phone, line 2 or state, trimmed, with the country code upper case', () => {
    const result = checkCheckoutForm(2, { ...contact, name: ' Ada Fan ' }, { ...shipping, state: '', postal_code: 'N1 9GU', country: 'gb' });
    expect(result).toEqual({
      ok: true,
      contact: { name: 'Ada Fan', email: 'ada@example.com', phone: '' },
      shipping: { name: 'Ada Fan', line1: '1 Record Row', line2: '', city: 'Houston', state: '', postal_code: 'N1 9GU', country: 'GB' },
    });
  });
});
