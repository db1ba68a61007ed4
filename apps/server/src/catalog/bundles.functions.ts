import { defineFunction } from '../functions/registry.ts';
import { listBundles, saveBundle } from './bundles.service.ts';

/** The console's bundles (issue 27, decision 055): admins make a product a bundle of others' variants. */
export function bundleFunctions(deps: { onChange: () => void }) {
  return [
    defineFunction('saveBundle', async (input, { db, caller }) => {
      await saveBundle(db, { userId: caller.userId }, input);
      deps.onChange();
      return { ok: true as const };
    }),
    defineFunction('listBundles', async (_input, { db }) => listBundles(db)),
  ];
}
