import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import type { PayoutProvider } from '../payments/provider.ts';
import { listPayouts, runPayouts, setPayoutAccount } from './payout-run.service.ts';
import { addCost, royaltiesOverview, saveParty, setSplit } from './rules.service.ts';
import { issueStatement, listStatements, readStatement, statementCsvFile } from './statements.service.ts';

/**
 * The royalties' callable functions (issue 36 parts 2-5, decisions 075 and 077): the console's
 * Royalties section, admins only. Statements are read without a party scope here; the parties'
 * portal (portal.functions.ts, decision 080) reads them through the same services scoped to a party the caller holds.
 */
export function royaltyFunctions(payouts: PayoutProvider): CallableFunction[] {
  return [
    defineFunction('listRoyalties', async (_input, { db, config }) => royaltiesOverview(db, config.LABEL_TIME_ZONE)),
    defineFunction('saveRoyaltyParty', async (input, { db, caller }) => saveParty(db, input, { userId: caller.userId })),
    defineFunction('setRoyaltySplit', async (input, { db, config, caller }) => setSplit(db, config.LABEL_TIME_ZONE, input, { userId: caller.userId })),
    defineFunction('addRecoupCost', async (input, { db, caller }) => addCost(db, input, { userId: caller.userId })),
    defineFunction('listRoyaltyStatements', async (_input, { db }) => listStatements(db)),
    defineFunction('getRoyaltyStatement', async (input, { db, config }) => readStatement(db, config.LABEL_TIME_ZONE, input)),
    defineFunction('getRoyaltyStatementCsv', async (input, { db, config }) => statementCsvFile(db, config.LABEL_TIME_ZONE, input)),
    defineFunction('issueRoyaltyStatement', async (input, { db, config, caller }) => issueStatement(db, config.LABEL_TIME_ZONE, input, { userId: caller.userId })),
    defineFunction('setRoyaltyPayoutAccount', async (input, { db, caller }) => setPayoutAccount(db, input, { userId: caller.userId })),
    defineFunction('runRoyaltyPayouts', async (input, { db, config, caller }) =>
      runPayouts({ db, provider: payouts, timeZone: config.LABEL_TIME_ZONE, minimumCents: config.ROYALTY_MIN_PAYOUT_CENTS }, input.period, { userId: caller.userId }),
    ),
    defineFunction('listRoyaltyPayouts', async (_input, { db }) => listPayouts(db)),
  ];
}
