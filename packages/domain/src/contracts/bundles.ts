import { z } from 'zod';
import { BUNDLE_MESSAGES, MAX_BUNDLE_COMPONENTS, MAX_COMPONENT_QTY } from '../bundles.ts';
import { defineContract, noInput, okOutput } from './define.ts';

const id = z.string().min(1).max(100);

/** One component as the console chooses it: a fixed variant, or `variantId` null when the buyer picks one (issue 27, decision 055). */
export const componentChoiceInput = z
  .object({
    productId: id,
    variantId: id.nullable(),
    qty: z.number().int(BUNDLE_MESSAGES.componentQty).min(1, BUNDLE_MESSAGES.componentQty).max(MAX_COMPONENT_QTY, BUNDLE_MESSAGES.componentQty),
  })
  .strict();

export const saveBundleInput = z
  .object({
    /** The product (released as any other: name, price, images) that becomes the bundle. */
    productId: id,
    components: z.array(componentChoiceInput).min(1, BUNDLE_MESSAGES.noComponents).max(MAX_BUNDLE_COMPONENTS, BUNDLE_MESSAGES.tooManyComponents),
  })
  .strict();

export const bundleViewOutput = z.object({
  productId: z.string(),
  name: z.string(),
  isActive: z.boolean(),
  components: z.array(z.object({ productId: z.string(), variantId: z.string().nullable(), qty: z.number(), name: z.string() })),
});

export const bundleContracts = {
  /** Makes a product a bundle of these components, or changes them (admin, audited). */
  saveBundle: defineContract({ access: 'admin', input: saveBundleInput, output: okOutput }),
  /** The bundles with their components, and every product a bundle may take with its variants (admin). */
  listBundles: defineContract({
    access: 'admin',
    input: noInput,
    output: z.object({
      bundles: z.array(bundleViewOutput),
      products: z.array(z.object({ id: z.string(), name: z.string(), bundle: z.boolean(), variants: z.array(z.object({ id: z.string(), label: z.string() })) })),
    }),
  }),
};
