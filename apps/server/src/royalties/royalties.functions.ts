import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { addCost, royaltiesOverview, saveParty, setSplit } from './rules.service.ts';

/** The royalties' callable functions (issue 36 parts 2 and 3, decision 075): the console's Royalties section, admins only. */
export function royaltyFunctions(): CallableFunction[] {
  return [
    defineFunction('listRoyalties', async (_input, { db, config }) => royaltiesOverview(db, config.LABEL_TIME_ZONE)),
    defineFunction('saveRoyaltyParty', async (input, { db, caller }) => saveParty(db, input, { userId: caller.userId })),
    defineFunction('setRoyaltySplit', async (input, { db, config, caller }) => setSplit(db, config.LABEL_TIME_ZONE, input, { userId: caller.userId })),
    defineFunction('addRecoupCost', async (input, { db, caller }) => addCost(db, input, { userId: caller.userId })),
  ];
}
