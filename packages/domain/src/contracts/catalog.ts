import { z } from 'zod';
import { createCategoryInput, deleteCategoryInput, editProductInput, moveCategoryInput, releaseProductInput, renameCategoryInput, setStockInput } from '../catalog-schemas.ts';
import { defineContract, noInput, okOutput } from './define.ts';

/** Null: unlimited (print on demand, digital). */
const stockCount = z.number().int().nonnegative().nullable();

/** The spec's two admin functions (section 7) and the stock tools of issue 15; the server decides who is an admin. */
export const catalogContracts = {
  releaseBizarreProduct: defineContract({
    access: 'admin',
    input: releaseProductInput,
    output: z.object({ ok: z.literal(true), id: z.string() }),
  }),
  editBizarreProduct: defineContract({ access: 'admin', input: editProductInput, output: okOutput }),
  /** A restock or stock correction of one variant, audited (who, when, from, to). */
  setVariantStock: defineContract({
    access: 'admin',
    input: setStockInput,
    output: z.object({ ok: z.literal(true), from: stockCount, to: stockCount }),
  }),
  /** Variants with LOW_STOCK_THRESHOLD or fewer left, fewest first (the /release low-stock list). */
  listLowStock: defineContract({
    access: 'admin',
    input: noInput,
    output: z.object({
      variants: z.array(
        z.object({ productId: z.string(), productName: z.string(), variantId: z.string(), options: z.array(z.string()), sku: z.string(), stock: z.number().int() }),
      ),
    }),
  }),
  /** The shop's categories in their order (issue 29 item 3): the shop's filter and the release and edit forms. */
  listCategories: defineContract({ access: 'public', input: noInput, output: z.object({ categories: z.array(z.object({ id: z.string(), name: z.string() })) }) }),
  /** The console's category tools (decision 046), each audited; a category is removed only when no product is in it. */
  createCategory: defineContract({ access: 'admin', input: createCategoryInput, output: z.object({ ok: z.literal(true), id: z.string() }) }),
  renameCategory: defineContract({ access: 'admin', input: renameCategoryInput, output: okOutput }),
  moveCategory: defineContract({ access: 'admin', input: moveCategoryInput, output: okOutput }),
  deleteCategory: defineContract({ access: 'admin', input: deleteCategoryInput, output: okOutput }),
};
