import { z } from 'zod';
import { editProductInput, releaseProductInput, setStockInput } from '@storefront/domain/catalog-schemas.ts';
import { defineFunction } from '../functions/registry.ts';
import { editProduct, newProductId, releaseProduct } from './catalog.service.ts';
import { listLowStock, setStock } from './variants.service.ts';

/**
 * The spec's two admin functions; the server decides who is an admin. `onChange` runs
 * after each committed change, so this process's next read already sees it.
 */
export function catalogFunctions(deps: { onChange: () => void }) {
  return [
    defineFunction({
      name: 'releaseBizarreProduct',
      access: 'admin',
      input: releaseProductInput,
      handler: async (input, { db, caller }) => {
        const id = await releaseProduct(db, input, newProductId(), caller?.userId ?? null);
        deps.onChange();
        return { ok: true, id };
      },
    }),
    defineFunction({
      name: 'editBizarreProduct',
      access: 'admin',
      input: editProductInput,
      handler: async (input, { db, caller }) => {
        await editProduct(db, input, caller?.userId ?? null);
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
