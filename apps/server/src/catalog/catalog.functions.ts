import { IMAGES_NOT_UPLOADED, ownImageUrl } from '@storefront/domain/catalog-schemas.ts';
import { defineFunction, type CallContext } from '../functions/registry.ts';
import { AppError } from '../http/errors.ts';
import { deleteProduct, editProduct, listAllProducts, moveProduct, releaseProduct, setProductActive } from './catalog.service.ts';
import { listLowStock, setStock } from './variants.service.ts';

/** Absolute download URLs of the shop's own origin (the Firebase SDK's) are stored as paths; others are refused. */
function ownImages(images: string[], context: CallContext): string[] {
  return images.map((url) => {
    const own = ownImageUrl(url, context.origin ?? '');
    if (own === undefined) throw new AppError('invalid-argument', IMAGES_NOT_UPLOADED);
    return own;
  });
}

/**
 * The spec's two admin functions and the console's product tools (decision 031); the
 * server decides who is an admin and audits each change. `onChange` runs after each
 * committed change, so this process's next read already sees it.
 */
export function catalogFunctions(deps: { onChange: () => void }) {
  return [
    defineFunction('releaseBizarreProduct', async (input, context) => {
      const id = await releaseProduct(context.db, { ...input, images: ownImages(input.images, context) }, undefined, { userId: context.caller.userId });
      deps.onChange();
      return { ok: true, id };
    }),
    defineFunction('editBizarreProduct', async (input, context) => {
      await editProduct(context.db, { ...input, images: ownImages(input.images, context) }, { userId: context.caller.userId });
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
      const change = await setStock(db, { userId: caller.userId }, input);
      deps.onChange();
      return { ok: true, ...change };
    }),
    defineFunction('listLowStock', async (_input, { db }) => ({ variants: await listLowStock(db) })),
  ];
}
