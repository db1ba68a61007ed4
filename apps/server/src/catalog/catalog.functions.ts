import { editProductInput, IMAGES_NOT_UPLOADED, ownImageUrl, releaseProductInput } from '@storefront/domain/catalog-schemas.ts';
import { deleteProductInput, moveProductInput, setProductActiveInput } from '@storefront/domain/console.ts';
import { z } from 'zod';
import { defineFunction, type CallContext, type Caller } from '../functions/registry.ts';
import { AppError } from '../http/errors.ts';
import { deleteProduct, editProduct, listAllProducts, moveProduct, releaseProduct, setProductActive } from './catalog.service.ts';

/** An admin function's caller: the access check ran, so there is one. */
const actorOf = (caller: Caller | null) => ({ userId: caller!.userId });

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
    defineFunction({
      name: 'releaseBizarreProduct',
      access: 'admin',
      input: releaseProductInput,
      handler: async (input, context) => {
        const id = await releaseProduct(context.db, { ...input, images: ownImages(input.images, context) }, undefined, actorOf(context.caller));
        deps.onChange();
        return { ok: true, id };
      },
    }),
    defineFunction({
      name: 'editBizarreProduct',
      access: 'admin',
      input: editProductInput,
      handler: async (input, context) => {
        await editProduct(context.db, { ...input, images: ownImages(input.images, context) }, actorOf(context.caller));
        deps.onChange();
        return { ok: true };
      },
    }),
    defineFunction({
      name: 'listAllProducts',
      access: 'admin',
      input: z.null().or(z.object({}).strict()),
      handler: async (_input, { db }) => ({ products: await listAllProducts(db) }),
    }),
    defineFunction({
      name: 'setProductActive',
      access: 'admin',
      input: setProductActiveInput,
      handler: async (input, { db, caller }) => {
        await setProductActive(db, input, actorOf(caller));
        deps.onChange();
        return { ok: true };
      },
    }),
    defineFunction({
      name: 'moveProduct',
      access: 'admin',
      input: moveProductInput,
      handler: async (input, { db, caller }) => {
        await moveProduct(db, input, actorOf(caller));
        deps.onChange();
        return { ok: true };
      },
    }),
    defineFunction({
      name: 'deleteProduct',
      access: 'admin',
      input: deleteProductInput,
      handler: async ({ id }, { db, caller }) => {
        await deleteProduct(db, id, actorOf(caller));
        deps.onChange();
        return { ok: true };
      },
    }),
  ];
}
