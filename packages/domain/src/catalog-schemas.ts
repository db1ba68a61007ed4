import { z } from 'zod';
import { optionalNullable } from './contracts/define.ts';
import { CATEGORY_ID, CATEGORY_MESSAGES, MAX_PRICE_CENTS, MAX_PRODUCT_IMAGES, RELEASE_MESSAGES, SHOP_PAGE_MAX, SHOP_SEARCH_MAX } from './catalog.ts';
import { isCalendarDate, PREORDER_MESSAGES } from './preorders.ts';
import { ARTIST_SLUG, ARTIST_SLUG_MAX, ROSTER_MESSAGES } from './roster.ts';
import { combinations, MAX_OPTION_VALUES, MAX_OPTIONS, MAX_STOCK, MAX_VARIANTS, MAX_WEIGHT_GRAMS, optionsProblem, sameValues, STOCK_MESSAGES } from './variants.ts';

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

/** Grams (decision 060); null: not weighed; absent on an edit: unchanged. */
const weightGramsSchema = z
  .number({ error: STOCK_MESSAGES.weight })
  .int(STOCK_MESSAGES.weight)
  .min(0, STOCK_MESSAGES.weight)
  .max(MAX_WEIGHT_GRAMS, STOCK_MESSAGES.weight)
  .nullable()
  .optional();

/** A street date, YYYY-MM-DD (decision 054); null: none; absent on an edit: unchanged. */
const releaseDateSchema = z.string({ error: PREORDER_MESSAGES.releaseDate }).refine(isCalendarDate, PREORDER_MESSAGES.releaseDate).nullable().optional();

export const productInputSchema = z.object({
  name: z.string().trim().min(1, RELEASE_MESSAGES.name).max(120, 'The product name must be at most 120 characters.'),
  description: z.string().trim().min(1, RELEASE_MESSAGES.description).max(5000, 'The description must be at most 5000 characters.'),
  priceCents: z.number({ error: RELEASE_MESSAGES.price }).int(RELEASE_MESSAGES.price).positive(RELEASE_MESSAGES.price).max(MAX_PRICE_CENTS, RELEASE_MESSAGES.price),
  images: z
    .array(z.string().refine((url) => IMAGE_URL.test(url) || ABSOLUTE_IMAGE_URL.test(url), IMAGES_NOT_UPLOADED))
    .max(MAX_PRODUCT_IMAGES, `At most ${MAX_PRODUCT_IMAGES} images.`),
  category: optionalNullable(z.string({ error: CATEGORY_MESSAGES.id }).regex(CATEGORY_ID, CATEGORY_MESSAGES.id)),
  /** The product's default weight in grams for its variants not weighed (decision 060); null: none; absent on an edit: unchanged. */
  weightGrams: weightGramsSchema,
  /** A preorder's street date (decision 054); absent on an edit: unchanged; null: none. */
  releaseDate: releaseDateSchema,
});

const optionText = z.string().trim().min(1, STOCK_MESSAGES.optionValues).max(40, 'An option or value must be at most 40 characters.');

/** Up to 3 options (issue 15); [] for a product without options. */
export const optionsSchema = z
  .array(z.object({ name: optionText, values: z.array(optionText).max(MAX_OPTION_VALUES, `At most ${MAX_OPTION_VALUES} values per option.`) }).strict())
  .max(MAX_OPTIONS, STOCK_MESSAGES.tooManyOptions);

export const variantInputSchema = z
  .object({
    options: z.array(z.string().trim().max(40)).max(MAX_OPTIONS),
    sku: z.string().trim().max(64, 'A SKU must be at most 64 characters.').default(''),
    /** null: the product's price. */
    priceCents: z
      .number({ error: RELEASE_MESSAGES.price })
      .int(RELEASE_MESSAGES.price)
      .positive(RELEASE_MESSAGES.price)
      .max(MAX_PRICE_CENTS, RELEASE_MESSAGES.price)
      .nullable()
      .default(null),
    /** null: unlimited. */
    stock: z.number({ error: STOCK_MESSAGES.stock }).int(STOCK_MESSAGES.stock).min(0, STOCK_MESSAGES.stock).max(MAX_STOCK, STOCK_MESSAGES.stock).nullable().default(null),
    /** "Limit N per customer" (decision 044); null: no limit; absent on an edit: unchanged. */
    perCustomerLimit: z
      .number({ error: STOCK_MESSAGES.perCustomerLimit })
      .int(STOCK_MESSAGES.perCustomerLimit)
      .min(1, STOCK_MESSAGES.perCustomerLimit)
      .max(1000, STOCK_MESSAGES.perCustomerLimit)
      .nullable()
      .optional(),
    /** Grams of one unit for weight-based shipping (decision 060); null: not weighed; absent on an edit: unchanged. */
    weightGrams: weightGramsSchema,
    /** Edit: the stock field was left as loaded, so an existing variant keeps its live count (sales since are not undone). */
    keepStock: optionalNullable(z.boolean()),
    /** The variant's own street date (decision 054); absent on an edit: unchanged; null: the product's. */
    releaseDate: releaseDateSchema,
  })
  .strict();

/** The options and, in the same order, one variant per combination of their values. */
const withVariants = {
  options: optionalNullable(optionsSchema),
  variants: optionalNullable(z.array(variantInputSchema).min(1).max(MAX_VARIANTS, STOCK_MESSAGES.tooManyVariants)),
};

function checkVariants(input: { options?: { name: string; values: string[] }[]; variants?: { options: string[] }[] }, ctx: z.RefinementCtx) {
  const options = input.options ?? [];
  const problem = optionsProblem(options);
  if (problem) {
    ctx.addIssue({ code: 'custom', message: problem, path: ['options'] });
    return;
  }
  if (!input.variants) {
    // Options change only with their variants.
    if (input.options !== undefined) ctx.addIssue({ code: 'custom', message: STOCK_MESSAGES.variantsMismatch, path: ['variants'] });
    return;
  }
  const expected = combinations(options);
  if (expected.length !== input.variants.length || !expected.every((values, i) => sameValues(values, input.variants![i]!.options))) {
    ctx.addIssue({ code: 'custom', message: STOCK_MESSAGES.variantsMismatch, path: ['variants'] });
  }
}

export const releaseProductInput = productInputSchema
  .extend({ images: productInputSchema.shape.images.min(1, RELEASE_MESSAGES.releaseImages), ...withVariants })
  .strict()
  .superRefine(checkVariants);

export const editProductInput = productInputSchema
  .extend({
    id: z.string().min(1).max(64),
    images: productInputSchema.shape.images.min(1, RELEASE_MESSAGES.editImages),
    order: optionalNullable(z.number().int().min(-1_000_000).max(1_000_000)),
    isActive: optionalNullable(z.boolean()),
    ...withVariants,
  })
  .strict()
  .superRefine(checkVariants);

/** A restock or stock correction of one variant (audited). */
export const setStockInput = z
  .object({
    variantId: z.string().min(1).max(80),
    stock: variantInputSchema.shape.stock.unwrap().unwrap().nullable(),
    reason: z.string().trim().max(200).default(''),
  })
  .strict();
export type SetStockInput = z.infer<typeof setStockInput>;
export type VariantInput = z.infer<typeof variantInputSchema>;

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
    category: z.union([z.literal(''), z.string().regex(CATEGORY_ID, CATEGORY_MESSAGES.id)], { error: CATEGORY_MESSAGES.id }).optional(),
    /** An artist's address (decision 070): only the products that credit them. */
    artist: z
      .union([z.literal(''), z.string().max(ARTIST_SLUG_MAX, ROSTER_MESSAGES.shopArtist).regex(ARTIST_SLUG, ROSTER_MESSAGES.shopArtist)], { error: ROSTER_MESSAGES.shopArtist })
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

const categoryName = z.string({ error: CATEGORY_MESSAGES.name }).trim().min(1, CATEGORY_MESSAGES.name).max(40, CATEGORY_MESSAGES.nameLong);
const categoryId = z.string({ error: CATEGORY_MESSAGES.notFound }).regex(CATEGORY_ID, CATEGORY_MESSAGES.notFound);

/** The console's category tools (issue 29 item 3, decision 046). */
export const createCategoryInput = z.object({ name: categoryName }).strict();
export const renameCategoryInput = z.object({ id: categoryId, name: categoryName }).strict();
/** Moves a category to a 0-based place in the shop's order. */
export const moveCategoryInput = z.object({ id: categoryId, position: z.number().int().min(0).max(1000) }).strict();
export const deleteCategoryInput = z.object({ id: categoryId }).strict();
