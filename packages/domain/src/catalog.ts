import type { ProductOption, Variant } from './variants.ts';

/**
 * Catalog rules (spec sections 3, 5 and 9): the release and edit checks in the spec's
 * order with its exact messages, USD <-> cents, and how prices are shown. No zod here:
 * the shop's pages import this module, and the request schemas live in catalog-schemas.ts.
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
  noMatch: 'No products match your search.',
  emptyCategory: 'No products in this category yet.',
} as const;

/**
 * The shop's categories (issue 17): every product is in exactly one. Since issue 29 item 3
 * (decision 046) they are rows the console manages; a category's id is its slug in the shop's
 * address (/shop?category=music), written once from its first name and never changed.
 */
export type ProductCategory = string;
/** The category a product gets when none is chosen (the first of the migrated ones; it cannot be removed). */
export const DEFAULT_CATEGORY: ProductCategory = 'merch';
export const CATEGORY_ID = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

/** A well-formed category id (whether it exists is the database's to say). */
export function isProductCategory(value: unknown): value is ProductCategory {
  return typeof value === 'string' && CATEGORY_ID.test(value);
}

/** A category as the shop and the forms list it. */
export interface Category {
  id: string;
  name: string;
}

export const CATEGORY_MESSAGES = {
  name: 'Please enter a category name.',
  nameLong: 'A category name must be at most 40 characters.',
  nameTaken: 'A category with that name already exists.',
  notFound: 'That category does not exist.',
  id: 'The category must be one of the shop’s categories.',
  notEmpty: (count: number) => `This category has ${count} ${count === 1 ? 'product' : 'products'}: move ${count === 1 ? 'it' : 'them'} to another category first.`,
  isDefault: 'This is the category new products get when none is chosen: it cannot be removed.',
} as const;

/** A new category's id from its name: lower case letters and digits joined by dashes ("Vinyl & CDs" is vinyl-cds). */
export function categorySlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'category';
}

/** A shop page: products in shop order, and the cursor of the next page (null on the last). */
export const SHOP_PAGE_SIZE = 24;
export const SHOP_PAGE_MAX = 60;
export const SHOP_SEARCH_MAX = 100;

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

/** How prices are shown: the domain's one money formatter (money.ts). */
export { formatUsd } from './money.ts';

/** Shop order: `order` highest first, then name (spec section 3). */
export function compareProducts(a: { order: number; name: string }, b: { order: number; name: string }): number {
  return b.order - a.order || a.name.localeCompare(b.name);
}

/** A product as every client reads it. */
export interface Product {
  /** Up to 3 options (issue 15); [] for a product without options. */
  options: ProductOption[];
  /** At least one: the default variant (id = the product's id) when there are no options. */
  variants: Variant[];
  id: string;
  name: string;
  description: string;
  priceCents: number;
  /** The default weight of one unit in grams (decision 060); null or absent: none. */
  weightGrams?: number | null;
  images: string[];
  order: number;
  isActive: boolean;
  category: ProductCategory;
  updatedAt: string;
  /** A preorder's street date, YYYY-MM-DD (issue 27, decision 054); absent or null: out now. */
  releaseDate?: string | null | undefined;
  /** A bundle (issue 27, decision 055): what it includes (its fixed parts, then each component the buyer picks); absent for other products. */
  includes?: string[];
  /** A digital product that sells a release (issue 39 item 6): its page is the release's, /music/<releaseId>. */
  releaseId?: number;
  /** false: not a card of the shop (a track sold alone: its release is one card, issue 39 item 6). */
  listed?: false;
}

export interface ShopPage {
  products: Product[];
  next: string | null;
}
