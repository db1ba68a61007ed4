import { z } from 'zod';
import { editProductInput, IMAGES_NOT_UPLOADED, ownImageUrl, releaseProductInput, setStockInput } from '@storefront/domain/catalog-schemas.ts';
import { defineFunction, type CallContext } from '../functions/registry.ts';
import { AppError } from '../http/errors.ts';
import { editProduct, newProductId, releaseProduct } from './catalog.service.ts';
import { listLowStock, setStock } from './variants.service.ts';

/**
 * The spec's two admin functions; the server decides who is an admin. `onChange` runs
 * after each committed change, so this process's next read already sees it.
 */
/** Absolute download URLs of the shop's own origin (the Firebase SDK's) are stored as paths; others are refused. */
function ownImages(images: string[], context: CallContext): string[] {
  return images.map((url) => {
    const own = ownImageUrl(url, context.origin ?? '');
    if (own === undefined) throw new AppError('invalid-argument', IMAGES_NOT_UPLOADED);
    return own;
  });
}

export function catalogFunctions(deps: { onChange: () => void }) {
  return [
    defineFunction({
      name: 'releaseBizarreProduct',
      access: 'admin',
      input: releaseProductInput,
      handler: async (input, context) => {
        const id = await releaseProduct(context.db, { ...input, images: ownImages(input.images, context) }, newProductId(), context.caller?.userId ?? null);
        deps.onChange();
        return { ok: true, id };
      },
    }),
    defineFunction({
      name: 'editBizarreProduct',
      access: 'admin',
      input: editProductInput,
      handler: async (input, context) => {
        await editProduct(context.db, { ...input, images: ownImages(input.images, context) }, context.caller?.userId ?? null);
        deps.onChange();
        return { ok: true };
      },
    }),
    // Issue 15: a restock or stock correction (audited), and the /release low-stock list.
    defineFunction({
      name: 'setVariantStock',
      access: 'admin',
      input: setStockInput,
      handler: async (input, { db, caller }) => {
        const change = await setStock(db, caller!.userId, input);
        deps.onChange();
        return { ok: true, ...change };
      },
    }),
    defineFunction({
      name: 'listLowStock',
      access: 'admin',
      input: z.object({}).strict().optional(),
      handler: async (_input, { db }) => ({ variants: await listLowStock(db) }),
    }),
  ];
}
