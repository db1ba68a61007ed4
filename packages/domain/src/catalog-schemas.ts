import { z } from 'zod';
import { optionalNullable } from './contracts/define.ts';
import { MAX_PRICE_CENTS, MAX_PRODUCT_IMAGES, RELEASE_MESSAGES } from './catalog.ts';

/**
 * The release and edit requests as the server checks them (spec sections 5 and 9), with
 * the messages of catalog.ts. Kept apart from catalog.ts so pages that only show
 * products do not download zod.
 */

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
    order: optionalNullable(z.number().int().min(-1_000_000).max(1_000_000)),
    isActive: optionalNullable(z.boolean()),
  })
  .strict();

export type ReleaseProductInput = z.infer<typeof releaseProductInput>;
export type EditProductInput = z.infer<typeof editProductInput>;
