import { z } from 'zod';
import { optionalNullable } from './contracts/define.ts';
import { MAX_PRICE_CENTS, MAX_PRODUCT_IMAGES, PRODUCT_CATEGORIES, RELEASE_MESSAGES, SHOP_PAGE_MAX, SHOP_SEARCH_MAX } from './catalog.ts';

/**
 * The release and edit requests as the server checks them (spec sections 5 and 9), with
 * the messages of catalog.ts. Kept apart from catalog.ts so pages that only show
 * products do not download zod.
 */

/** Same-origin image paths only (our storage and sample art): no scheme, no `//` host. */
const IMAGE_URL = /^\/(?!\/)[A-Za-z0-9._~\-/%?=&+]{1,500}$/;
/**
 * Or the same, absolute (what the Firebase SDK's getDownloadURL gives): the server keeps it
 * only when the origin is the shop's own, stored as the path (see ownImageUrl).
 */
const ABSOLUTE_IMAGE_URL = /^https?:\/\/[A-Za-z0-9.\-[\]:]{1,300}\/(?!\/)[A-Za-z0-9._~\-/%?=&+]{1,500}$/;

export const IMAGES_NOT_UPLOADED = 'Images must be uploaded to the shop first.';

/**
 * An image URL as the shop stores it: a same-origin path stays as it is; an absolute URL
 * on the shop's own origin becomes its path; anything else is undefined (refused).
 */
export function ownImageUrl(url: string, shopOrigin: string): string | undefined {
  if (IMAGE_URL.test(url)) return url;
  if (!ABSOLUTE_IMAGE_URL.test(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.origin !== shopOrigin) return undefined;
  const local = `${parsed.pathname}${parsed.search}`;
  return IMAGE_URL.test(local) ? local : undefined;
}

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
    .array(z.string().refine((url) => IMAGE_URL.test(url) || ABSOLUTE_IMAGE_URL.test(url), IMAGES_NOT_UPLOADED))
    .max(MAX_PRODUCT_IMAGES, `At most ${MAX_PRODUCT_IMAGES} images.`),
  category: optionalNullable(z.enum(PRODUCT_CATEGORIES, { error: 'The category must be merch, music or bundles.' })),
});

export const releaseProductInput = productInputSchema
  .extend({ images: productInputSchema.shape.images.min(1, RELEASE_MESSAGES.releaseImages) })
  .strict();

export const editProductInput = productInputSchema
  .extend({
    id: z.string().min(1).max(64),
    images: productInputSchema.shape.images.min(1, RELEASE_MESSAGES.editImages),
    order: optionalNullable(z.number().int().min(-1_000_000).max(1_000_000)),
    isActive: optionalNullable(z.boolean()),
  })
  .strict();

export type ReleaseProductInput = z.infer<typeof releaseProductInput>;
export type EditProductInput = z.infer<typeof editProductInput>;

/**
 * The shop list's query string (GET /api/products): a search, a category, the next page's
 * cursor and a page size. An empty q or category means none (a shared URL may carry them empty).
 */
export const shopQuery = z.strictObject(
  {
    q: z
      .string({ error: 'The search must be text.' })
      .max(SHOP_SEARCH_MAX, `The search must be at most ${SHOP_SEARCH_MAX} characters.`)
      .refine((value) => !value.includes('\u0000'), 'The search cannot contain a NUL character.')
      .transform((value) => value.trim())
      .optional(),
    category: z
      .union([z.literal(''), z.enum(PRODUCT_CATEGORIES)], { error: 'The category must be merch, music or bundles.' })
      .optional(),
    after: z.string({ error: 'That page cursor is not valid.' }).min(1, 'That page cursor is not valid.').max(400, 'That page cursor is not valid.').optional(),
    limit: z.coerce
      .number({ error: `The page size must be a whole number from 1 to ${SHOP_PAGE_MAX}.` })
      .int(`The page size must be a whole number from 1 to ${SHOP_PAGE_MAX}.`)
      .min(1, `The page size must be a whole number from 1 to ${SHOP_PAGE_MAX}.`)
      .max(SHOP_PAGE_MAX, `The page size must be a whole number from 1 to ${SHOP_PAGE_MAX}.`)
      .optional(),
  },
  { error: 'Unknown parameter: the shop list takes q, category, after and limit.' },
);

export type ShopQuery = z.infer<typeof shopQuery>;
