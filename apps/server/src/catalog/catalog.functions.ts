import { defineFunction } from '../functions/registry.ts';
import { editProduct, releaseProduct } from './catalog.service.ts';

/**
 * The spec's two admin functions; the server decides who is an admin. `onChange` runs
 * after each committed change, so this process's next read already sees it.
 */
export function catalogFunctions(deps: { onChange: () => void }) {
  return [
    defineFunction('releaseBizarreProduct', async (input, { db }) => {
      const id = await releaseProduct(db, input);
      deps.onChange();
      return { ok: true, id };
    }),
    defineFunction('editBizarreProduct', async (input, { db }) => {
      await editProduct(db, input);
      deps.onChange();
      return { ok: true };
    }),
  ];
}
