import { z } from 'zod';

/**
 * Catalog rules (spec sections 3, 5 and 9): the release and edit checks in the spec's
 * order with its exact messages, USD <-> cents, and how prices are shown.
 */
export const RELEASE_MESSAGES = {
  name: 'Please enter a product name.',
  description: 'Please enter a product description.',
  price: 'Please enter a valid price greater than 0.',
  releaseImages: 'Please select at least one image.',
  editImages: 'Please include at least one image.',
  releaseFailed: 'Unable to release product. Please try again.',
  releaseNotOk: 'Cloud function did not return ok',
  editFailed: 'Edit failed.',
  saveFailed: 'Unable to save changes.',
  updated: 'Product updated',
  addedToCart: 'Added to cart',
  notFound: 'Product not found.',
  empty: 'No products released yet.',
} as const;

export const MAX_PRODUCT_IMAGES = 12;
export const MAX_PRICE_CENTS = 100_000_000; // $1,000,000: a typo guard, not a business rule

/**
 * USD as typed ("19.99", "20", "0.005") to whole cents, rounding half up on the decimal
 * string itself so no binary fraction can tip it. Undefined when it is not a number.
 */
export function usdToCents(input: string | number): number | undefined {
  const text = String(input).trim().replace(/^\$/, '');
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text) ?? /^()\.(\d+)$/.exec(text);
  if (!match) return undefined;
  const whole = Number(match[1] || '0');
  const fraction = (match[2] ?? '').padEnd(3, '0');
  const cents = whole * 100 + Number(fraction.slice(0, 2)) + (Number(fraction[2]) >= 5 ? 1 : 0);
  return Number.isSafeInteger(cents) ? cents : undefined;
}

export interface ProductForm {
  name: string;
  description: string;
  price: string | number;
  imageCount: number;
}

/** The first failing check, in the spec's order, or undefined. */
export function productFormProblem(form: ProductForm, mode: 'release' | 'edit'): string | undefined {
  if (!form.name.trim()) return RELEASE_MESSAGES.name;
  if (!form.description.trim()) return RELEASE_MESSAGES.description;
  const cents = usdToCents(form.price);
  if (cents === undefined || cents <= 0 || cents > MAX_PRICE_CENTS) return RELEASE_MESSAGES.price;
  if (form.imageCount < 1) return mode === 'release' ? RELEASE_MESSAGES.releaseImages : RELEASE_MESSAGES.editImages;
  return undefined;
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** "$1,234.50"; a dash when the value is not a number (spec section 5). */
export function formatUsd(cents: unknown): string {
  const value = typeof cents === 'string' && cents.trim() !== '' ? Number(cents) : cents;
  if (typeof value !== 'number' || !Number.isFinite(value)) return '—';
  return usd.format(value / 100);
}

/** Shop order: `order` highest first, then name (spec section 3). */
export function compareProducts(a: { order: number; name: string }, b: { order: number; name: string }): number {
  return b.order - a.order || a.name.localeCompare(b.name);
}

/** Same-origin image paths only (our storage and sample art): no scheme, no `//` host. */
const IMAGE_URL = /^\/(?!\/)[A-Za-z0-9._~\-/%?=&+]{1,500}$/;

export const productInputSchema = z.object({
  name: z.string().trim().min(1, RELEASE_MESSAGES.name).max(120, 'The product name must be at most 120 characters.'),
  description: z
    .string()
    .trim()
    .min(1, RELEASE_MESSAGES.description)
    .max(5000, 'The description must be at most 5000 characters.'),
  priceCents: z
    .number({ error: RELEASE_MESSAGES.price })
    .int(RELEASE_MESSAGES.price)
    .positive(RELEASE_MESSAGES.price)
    .max(MAX_PRICE_CENTS, RELEASE_MESSAGES.price),
  images: z
    .array(z.string().regex(IMAGE_URL, 'Images must be uploaded to the shop first.'))
    .max(MAX_PRODUCT_IMAGES, `At most ${MAX_PRODUCT_IMAGES} images.`),
});

export const releaseProductInput = productInputSchema
  .extend({ images: productInputSchema.shape.images.min(1, RELEASE_MESSAGES.releaseImages) })
  .strict();

export const editProductInput = productInputSchema
  .extend({
    id: z.string().min(1).max(64),
    images: productInputSchema.shape.images.min(1, RELEASE_MESSAGES.editImages),
    order: z.number().int().min(-1_000_000).max(1_000_000).optional(),
    isActive: z.boolean().optional(),
  })
  .strict();

export type ReleaseProductInput = z.infer<typeof releaseProductInput>;
export type EditProductInput = z.infer<typeof editProductInput>;

/** A product as every client reads it. */
export interface Product {
  id: string;
  name: string;
  description: string;
  priceCents: number;
  images: string[];
  order: number;
  isActive: boolean;
  updatedAt: string;
}
