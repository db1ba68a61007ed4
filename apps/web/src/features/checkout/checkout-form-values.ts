import { addressProblem } from '@storefront/domain/address-rules.ts';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { contactSchema, shippingSchema, type Contact, type Shipping } from '@storefront/domain/pricing-schemas.ts';
import { DEFAULT_COUNTRY } from './countries.ts';

/** What the checkout form holds, as typed. */
export interface ContactValues {
  name: string;
  email: string;
  phone: string;
}

export interface ShippingValues {
  name: string;
  line1: string;
  line2: string;
  city: string;
  state: string;
  postal_code: string;
  country: string;
}

export type FieldKey = `contact.${keyof ContactValues}` | `shipping.${keyof ShippingValues}`;

export const emptyShipping = (name: string): ShippingValues => ({
  name,
  line1: '',
  line2: '',
  city: '',
  state: '',
  postal_code: '',
  country: DEFAULT_COUNTRY,
});

export type CheckoutCheck = { ok: true; contact: Contact; shipping?: Shipping } | { ok: false; message: string; field?: FieldKey };

/**
 * The form's first problem, in the spec's order (section 5): an empty cart, the full
 * name, the email; then the shipping address and its country's rules, unless nothing ships (an
 * all-digital cart, issue 28). The domain's schemas are the server's, so the browser shows the
 * same messages the server would send.
 */
export function checkCheckoutForm(itemCount: number, contact: ContactValues, shipping: ShippingValues, needsAddress = true): CheckoutCheck {
  if (itemCount === 0) return { ok: false, message: CHECKOUT_MESSAGES.emptyCart };
  const parsedContact = contactSchema.safeParse(contact);
  if (!parsedContact.success) {
    const issue = parsedContact.error.issues[0];
    return { ok: false, message: issue?.message ?? CHECKOUT_MESSAGES.fullName, field: fieldKey('contact', issue?.path[0]) };
  }
  if (!needsAddress) return { ok: true, contact: parsedContact.data };
  const parsedShipping = shippingSchema.safeParse(shipping);
  if (!parsedShipping.success) {
    const issue = parsedShipping.error.issues[0];
    return { ok: false, message: issue?.message ?? 'Please check the shipping address.', field: fieldKey('shipping', issue?.path[0]) };
  }
  // The server's per-country rules (issue 26): a state where one is required, the postal code's form.
  const problem = addressProblem(parsedShipping.data);
  if (problem) return { ok: false, message: problem, field: problem.includes('postal code') ? 'shipping.postal_code' : 'shipping.state' };
  return { ok: true, contact: parsedContact.data, shipping: parsedShipping.data };
}

function fieldKey(group: 'contact' | 'shipping', name: PropertyKey | undefined): FieldKey | undefined {
  return typeof name === 'string' ? (`${group}.${name}` as FieldKey) : undefined;
}
