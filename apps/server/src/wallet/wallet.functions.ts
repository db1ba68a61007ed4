import { defineFunction } from '../functions/registry.ts';
import { assetsSummary, datDetail, walletSummary } from './wallet.summary.ts';

export const walletFunctions = [
  defineFunction('getWallet', async (_input, { db, caller }) => walletSummary(db, caller.userId)),
  defineFunction('getDat', async ({ id }, { db, caller }) => datDetail(db, caller.userId, id)),
  defineFunction('getAssetsSummary', async (_input, { db }) => ({ assets: await assetsSummary(db) })),
];
