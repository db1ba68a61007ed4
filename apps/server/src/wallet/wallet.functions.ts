import { z } from 'zod';
import { defineFunction } from '../functions/registry.ts';
import { listWalletHistory, walletHistoryInput } from './wallet-history.service.ts';
import { assetsSummary, datDetail, walletSummary } from './wallet.summary.ts';

export const walletFunctions = [
  defineFunction({
    name: 'getWallet',
    access: 'signed-in',
    input: z.null().or(z.object({}).strict()),
    handler: async (_input, { db, caller }) => walletSummary(db, caller!.userId),
  }),
  defineFunction({
    name: 'listWalletHistory',
    access: 'signed-in',
    input: walletHistoryInput,
    // Always the caller's own ledger: no user id is taken from the request.
    handler: async (page, { db, caller }) => listWalletHistory(db, caller!.userId, page),
  }),
  defineFunction({
    name: 'getDat',
    access: 'signed-in',
    input: z.object({ id: z.string().min(1).max(100) }).strict(),
    handler: async ({ id }, { db, caller }) => datDetail(db, caller!.userId, id),
  }),
  defineFunction({
    name: 'getAssetsSummary',
    access: 'public',
    input: z.null().or(z.object({}).strict()),
    handler: async (_input, { db }) => ({ assets: await assetsSummary(db) }),
  }),
];
