import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_MESSAGES } from '@storefront/domain/pricing.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { ledgerEntries } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import type { AppError } from '../errors.ts';
import { grantCredits } from './wallet.commands.ts';
import { debit, getBalance } from './wallet.service.ts';

let database: TestDatabase;
let userId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const form = { email: 'spender@example.org', username: 'Spender', name: 'Spender', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true };
  userId = (await createAccount(database.db, testConfig(), form, { emailVerified: true })).userId;
  await grantCredits(database.db, 'spender@example.org', '10.00', 'starting-credit');
});

afterAll(async () => {
  await database?.close();
});

const spend = (cents: number, reference: string) => runTransaction(database.db, (tx) => debit(tx, userId, cents, reference), { isolationLevel: 'read committed' });
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as AppError,
  );
const entries = () => database.db.select().from(ledgerEntries).where(eq(ledgerEntries.userId, userId));

describe('debit: the conditional update and its ledger entry in one statement', () => {
  it('takes the credit and records it once', async () => {
    await spend(250, 'order-1');
    expect(await getBalance(database.db, userId)).toEqual({ balanceCents: 750, heldCents: 0 });
    expect((await entries()).filter((entry) => entry.kind === 'debit')).toEqual([expect.objectContaining({ reference: 'order-1', availableDeltaCents: -250, heldDeltaCents: 0 })]);
  });

  it('refuses more than the balance and changes nothing', async () => {
    const failure = await failureOf(spend(751, 'order-2'));
    expect([failure?.code, failure?.message]).toEqual(['failed-precondition', CHECKOUT_MESSAGES.insufficientWallet]);
    expect(await getBalance(database.db, userId)).toEqual({ balanceCents: 750, heldCents: 0 });
    expect((await entries()).some((entry) => entry.reference === 'order-2')).toBe(false);
  });

  it('refuses a second debit for the same reference, taking nothing', async () => {
    const failure = await failureOf(spend(100, 'order-1'));
    expect(failure?.code).toBe('aborted');
    expect(await getBalance(database.db, userId)).toEqual({ balanceCents: 750, heldCents: 0 });
    expect((await entries()).filter((entry) => entry.reference === 'order-1')).toHaveLength(1);
  });

  it('keeps the ledger equal to the balance under concurrent debits', async () => {
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => spend(100, `burst-${i}`)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(7);
    const { balanceCents } = await getBalance(database.db, userId);
    expect(balanceCents).toBe(50);
    const sum = (await entries()).reduce((total, entry) => total + entry.availableDeltaCents, 0);
    expect(sum).toBe(balanceCents);
  });
});
