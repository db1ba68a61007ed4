import { defineFunction } from '../functions/registry.ts';
import { listWalletHistory } from './wallet-history.service.ts';
import { assetsSummary, datDetail, walletSummary } from './wallet.summary.ts';

export const walletFunctions = [
  defineFunction('getWallet', async (_input, { db, caller }) => walletSummary(db, caller.userId)),
  // Always the caller's own ledger: no user id is taken from the request.
  defineFunction('listWalletHistory', async (page, { db, caller }) => listWalletHistory(db, caller.userId, page)),
  defineFunction('getDat', async ({ id }, { db, caller }) => datDetail(db, caller.userId, id)),
  defineFunction('getAssetsSummary', async (_input, { db }) => ({ assets: await assetsSummary(db) })),
];
