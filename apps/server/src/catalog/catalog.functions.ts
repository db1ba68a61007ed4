import { editProductInput, releaseProductInput } from '@storefront/domain/catalog.ts';
import { defineFunction } from '../functions/registry.ts';
import { editProduct, releaseProduct } from './catalog.service.ts';

/** The spec's two admin functions; the server decides who is an admin. */
export const catalogFunctions = [
  defineFunction({
    name: 'releaseBizarreProduct',
    access: 'admin',
    input: releaseProductInput,
    handler: async (input, { db }) => ({ ok: true, id: await releaseProduct(db, input) }),
  }),
  defineFunction({
    name: 'editBizarreProduct',
    access: 'admin',
    input: editProductInput,
    handler: async (input, { db }) => {
      await editProduct(db, input);
      return { ok: true };
    },
  }),
];
