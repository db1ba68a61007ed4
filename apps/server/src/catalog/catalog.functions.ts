import { CATEGORY_MESSAGES } from '@storefront/domain/catalog.ts';
import { IMAGES_NOT_UPLOADED, ownImageUrl } from '@storefront/domain/catalog-schemas.ts';
import { constraintOf, sqlState } from '../db/errors.ts';
import { defineFunction, type CallContext } from '../functions/registry.ts';
import { AppError } from '../errors.ts';
import { deleteProduct, editProduct, listAllProducts, moveProduct, releaseProduct, setProductActive } from './catalog.service.ts';
import { createCategory, deleteCategory, listCategories, moveCategory, renameCategory } from './categories.service.ts';
import { unitsSoldOf } from '../orders/orders.service.ts';
import { labelToday, onDatesMoved, type PreorderDeps } from '../preorders/preorders.flow.ts';
import { listLowStock, setStock } from './variants.service.ts';

/** A product naming a category that does not exist (or was just removed): the foreign key says so (decision 046). */
async function withKnownCategory<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (sqlState(error) === '23503' && constraintOf(error) === 'product_category_product_category_id_fk') throw new AppError('invalid-argument', CATEGORY_MESSAGES.notFound);
    throw error;
  }
}

/** Absolute download URLs of the shop's own origin (the Firebase SDK's) are stored as paths; others are refused. */
function ownImages(images: string[], context: CallContext): string[] {
  return images.map((url) => {
    const own = ownImageUrl(url, context.origin ?? '');
    if (own === undefined) throw new AppError('invalid-argument', IMAGES_NOT_UPLOADED);
    return own;
  });
}

/** A product just released with a street date ahead (app.ts hands this over). */
export type OnPreorderOpened = (product: { id: string; name: string; releaseDate: string }) => Promise<void>;

/**
 * The spec's two admin functions and the console's product tools (decision 031); the
 * server decides who is an admin and audits each change. `onChange` runs after each
 * committed change, so this process's next read already sees it.
 */
export function catalogFunctions(deps: { onChange: () => void; preorders: PreorderDeps; onPreorderOpened?: OnPreorderOpened }) {
  return [
    defineFunction('releaseBizarreProduct', async (input, context) => {
      const today = labelToday(deps.preorders);
      const id = await withKnownCategory(() =>
        releaseProduct(context.db, { ...input, images: ownImages(input.images, context) }, undefined, { userId: context.caller.userId }, today),
      );
      deps.onChange();
      // A street date ahead: the product opens for preorder (its automatic announcement, decision 079).
      if (input.releaseDate && input.releaseDate > today && deps.onPreorderOpened) {
        await deps
          .onPreorderOpened({ id, name: input.name, releaseDate: input.releaseDate })
          .catch((error: unknown) => context.log.warn({ err: error, productId: id }, 'automatic announcement of a preorder failed'));
      }
      return { ok: true, id };
    }),
    defineFunction('editBizarreProduct', async (input, context) => {
      // A street date must be after the label's today; a moved one tells its preorder buyers once (decision 054).
      const options = { today: labelToday(deps.preorders), onDatesMoved: onDatesMoved(deps.preorders) };
      await withKnownCategory(() => editProduct(context.db, { ...input, images: ownImages(input.images, context) }, { userId: context.caller.userId }, options));
      deps.onChange();
      return { ok: true };
    }),
    defineFunction('listCategories', async (_input, { db }) => ({ categories: await listCategories(db) })),
    defineFunction('createCategory', async (input, { db, caller }) => {
      const id = await createCategory(db, input, { userId: caller.userId });
      deps.onChange();
      return { ok: true, id };
    }),
    defineFunction('renameCategory', async (input, { db, caller }) => {
      await renameCategory(db, input, { userId: caller.userId });
      deps.onChange();
      return { ok: true };
    }),
    defineFunction('moveCategory', async (input, { db, caller }) => {
      await moveCategory(db, input, { userId: caller.userId });
      deps.onChange();
      return { ok: true };
    }),
    defineFunction('deleteCategory', async (input, { db, caller }) => {
      await deleteCategory(db, input, { userId: caller.userId });
      deps.onChange();
      return { ok: true };
    }),
    defineFunction('listAllProducts', async (_input, { db }) => ({ products: await listAllProducts(db) })),
    defineFunction('setProductActive', async (input, { db, caller }) => {
      await setProductActive(db, input, { userId: caller.userId });
      deps.onChange();
      return { ok: true };
    }),
    defineFunction('moveProduct', async (input, { db, caller }) => {
      await moveProduct(db, input, { userId: caller.userId });
      deps.onChange();
      return { ok: true };
    }),
    defineFunction('deleteProduct', async ({ id }, { db, caller }) => {
      await deleteProduct(db, id, { userId: caller.userId });
      deps.onChange();
      return { ok: true };
    }),
    // Issue 15: a restock or stock correction (audited), and the /release low-stock list.
    defineFunction('setVariantStock', async (input, { db, caller }) => {
      const change = await setStock(db, { userId: caller.userId }, input, unitsSoldOf);
      deps.onChange();
      return { ok: true, ...change };
    }),
    defineFunction('listLowStock', async (_input, { db }) => ({ variants: await listLowStock(db) })),
  ];
}
