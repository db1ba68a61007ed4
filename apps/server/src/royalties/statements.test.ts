import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATEMENT_MESSAGES } from '@storefront/domain/royalty-statements.ts';
import { todayIn } from '@storefront/domain/sales.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { postEarnings } from '../checkout/earnings.step.ts';
import { localTransfers, royaltyEntries, royaltyParties, royaltyPayouts } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { insertOrder } from '../orders/orders.service.ts';
import { credit, debit } from '../wallet/wallet.service.ts';
import { insertRule } from './rules.service.ts';

/**
 * Statements and payout runs (issue 36 parts 4-5, decision 077), by their outcomes: the figures
 * of a party's month against the ledger's own rows, an issued statement read back unchanged
 * after a later refund (which is on the next one), the CSV's cells, and a payout run's transfers
 * at the local provider.
 */
const ZONE = 'America/New_York';
let app: TestApp;
let admin: ReturnType<TestApp['functions']>;
let buyerId: string;
let house: number;
let serial = 0;

beforeAll(async () => {
  app = await startTestApp({ config: { env: { LABEL_TIME_ZONE: ZONE, ROYALTY_MIN_PAYOUT_CENTS: '500' } } });
  const adminId = await app.account('statements-admin');
  buyerId = await app.account('statements-buyer');
  await app.db.execute(sql`UPDATE "user" SET role = 'admin' WHERE id = ${adminId}`);
  const token = await app.signIn('statements-admin@example.org');
  admin = app.functions(() => token);
  house = (await app.db.select().from(royaltyParties).where(eq(royaltyParties.house, true)))[0]!.id;
});

afterAll(async () => {
  await app?.close();
});

const errorOf = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => undefined,
    (error: unknown) => error,
  )) as FunctionsError;

/** The label's month `back` months before this one, as "YYYY-MM". */
function monthBefore(back: number): string {
  const [year, month] = todayIn(ZONE).split('-').map(Number) as [number, number];
  const date = new Date(Date.UTC(year, month - 1 - back, 1));
  return date.toISOString().slice(0, 7);
}

/** A wallet order of `qty` units at `unitCents`, placed at `at`, posted as the checkout posts it. */
async function order(productId: string, unitCents: number, qty: number, at: Date) {
  serial += 1;
  const subtotal = unitCents * qty;
  const tax = Math.round(subtotal * 0.0925);
  const total = subtotal + tax;
  return runTransaction(app.db, async (tx) => {
    const { id } = await insertOrder(tx, {
      userId: buyerId,
      checkoutId: `statements-${serial}`,
      paymentIntentId: `pi_statements_${serial}`,
      items: [{ id: productId, name: 'Line', qty, unitCents }],
      subtotalCents: subtotal,
      shippingCents: 0,
      taxCents: tax,
      walletAppliedCents: total,
      chargedCents: 0,
      contact: { name: 'Buyer', email: 'statements-buyer@example.org', phone: '' },
      shipping: { name: 'Buyer' },
    });
    await credit(tx, buyerId, total, `statements-grant-${serial}`);
    await debit(tx, buyerId, total, id);
    // Placed in an earlier month: the ledger dates the sale by the order's time.
    await tx.execute(sql`UPDATE "order" SET created_at = ${at.toISOString()}::timestamptz WHERE id = ${id}`);
    await postEarnings(tx, id);
    return { id };
  });
}

/** The party's ledger up to a moment, summed straight from its rows (a release counts from its day). */
async function ledgerUpTo(partyId: number, before: string): Promise<number> {
  const result = await app.db.execute<{ cents: string }>(sql`
    SELECT coalesce(sum(amount_cents), 0)::text AS cents FROM royalty_entry
    WHERE party_id = ${partyId} AND coalesce((available_on::timestamp AT TIME ZONE ${ZONE}), earned_at) < ${before}::timestamptz`);
  return Number(result.rows[0]!.cents);
}

const identity = (s: { openingCents: number; earningsCents: number; recoupedCents: number; reserveHeldCents: number; reserveReleasedCents: number; payoutsCents: number }) =>
  s.openingCents + s.earningsCents - s.recoupedCents - s.reserveHeldCents + s.reserveReleasedCents - s.payoutsCents;

describe('statements', () => {
  it('add up and tie to the ledger; an issued statement stays as issued, and a later refund is on the next one', async () => {
    const { id: releaseId } = await admin.call('saveRelease', {
      kind: 'ep',
      title: 'Statement EP',
      artist: 'Statement Band',
      releaseDate: '2026-01-01',
      priceCents: 1000,
      published: true,
      tracks: [{ title: 'One' }],
    });
    const { release } = await admin.call('getRelease', { id: releaseId });
    const { id: artistId } = await admin.call('saveArtist', { name: 'Statement Band', links: [] });
    const { id: artist } = await admin.call('saveRoyaltyParty', { kind: 'artist', name: 'Statement Band', artistId });
    // The split applies from long before the sales (the function refuses a past day; history is written as tests do).
    await insertRule(
      app.db,
      ZONE,
      {
        subject: { kind: 'release', id: releaseId },
        effectiveFrom: '2020-01-01',
        shares: [
          { partyId: house, shareBp: 5000 },
          { partyId: artist, shareBp: 5000 },
        ],
        reserveBp: 1000,
        reserveDays: 30,
      },
      { operator: 'cli' },
    );
    await admin.call('addRecoupCost', { releaseId, partyId: artist, kind: 'advance', amountCents: 1200, note: 'Advance' });

    const sold = monthBefore(2);
    const current = monthBefore(0);
    // Two months ago: $20.00 and $30.00 of goods; the artist earns $10.00 + $15.00, $12.00 recouped, 10% held for 30 days (released last month).
    await order(release!.productId!, 1000, 2, new Date(`${sold}-10T17:00:00Z`));
    const second = await order(release!.productId!, 1000, 3, new Date(`${sold}-20T17:00:00Z`));

    const draft = await admin.call('getRoyaltyStatement', { partyId: artist, period: sold });
    expect(draft).toMatchObject({
      id: null,
      issuedAt: null,
      periodKind: 'month',
      from: `${sold}-01`,
      timeZone: ZONE,
      openingCents: 0,
      earningsCents: 2500,
      recoupedCents: 1200,
      reserveHeldCents: 250,
      reserveReleasedCents: 0,
      payoutsCents: 0,
      closingCents: 1050,
    });
    expect(draft.earnings).toEqual([{ releaseId, release: 'Statement EP', format: expect.any(String), soldCents: 2500, returnedCents: 0 }]);
    expect(identity(draft)).toBe(draft.closingCents);
    // Ties to the ledger: the closing balance is the party's rows in effect before the period's end.
    const end = (await app.db.execute<{ at: string }>(sql`SELECT (((${`${sold}-01`})::date + interval '1 month')::timestamp AT TIME ZONE ${ZONE})::text AS at`)).rows[0]!.at;
    expect(await ledgerUpTo(artist, end)).toBe(draft.closingCents);

    const issued = await admin.call('issueRoyaltyStatement', { partyId: artist, period: sold });
    expect(issued.id).toEqual(expect.any(Number));
    expect({ ...issued, id: null, issuedAt: null }).toEqual(draft);
    // Issuing again answers the statement issued; an earlier period can no longer be issued.
    expect((await admin.call('issueRoyaltyStatement', { partyId: artist, period: sold })).id).toBe(issued.id);
    expect((await errorOf(admin.call('issueRoyaltyStatement', { partyId: artist, period: monthBefore(3) }))).message).toBe(STATEMENT_MESSAGES.alreadyIssued);
    expect((await errorOf(admin.call('getRoyaltyStatement', { partyId: artist, period: '2999-01' }))).message).toBe(STATEMENT_MESSAGES.notBegun);

    // The second order refunded whole, today: the issued statement does not change.
    await admin.call('refundOrder', { orderId: second.id, idempotencyKey: `statements-refund-${serial}` });
    expect(await admin.call('getRoyaltyStatement', { statementId: issued.id! })).toEqual(issued);
    expect(await admin.call('getRoyaltyStatement', { partyId: artist, period: sold })).toEqual(issued);

    // The next statement (this month, issued early: up to now) opens at the last closing and carries the refund,
    // the recoup it gave back, and last month's reserve releases (dated before its period).
    const next = await admin.call('issueRoyaltyStatement', { partyId: artist, period: current });
    expect(next).toMatchObject({
      openingCents: 1050,
      earningsCents: -1500,
      recoupedCents: -200,
      reserveHeldCents: 0,
      reserveReleasedCents: 250,
      payoutsCents: 0,
      closingCents: 0,
      earlierCents: 250,
    });
    expect(next.earnings).toEqual([{ releaseId, release: 'Statement EP', format: expect.any(String), soldCents: 0, returnedCents: -1500 }]);
    expect(identity(next)).toBe(next.closingCents);
    expect(await ledgerUpTo(artist, next.cutoffAt)).toBe(next.closingCents);
    // The console's balance (every entry in effect today) is the last closing balance.
    const balance = (await admin.call('listRoyalties', null)).balances.find((row) => row.partyId === artist);
    expect(balance?.balanceCents).toBe(next.closingCents);
    // Every entry of the party is on exactly one statement.
    const unstated = await app.db.execute(sql`
      SELECT e.id FROM royalty_entry e WHERE e.party_id = ${artist} AND NOT EXISTS (SELECT 1 FROM royalty_statement_entry s WHERE s.entry_id = e.id)`);
    expect(unstated.rows).toEqual([]);
    const listed = await admin.call('listRoyaltyStatements', null);
    expect(listed.statements.filter((row) => row.partyId === artist).map((row) => row.period)).toEqual([current, sold]);
  });

  it('writes the CSV with cells a spreadsheet cannot run', async () => {
    const { id: partyId } = await admin.call('saveRoyaltyParty', { kind: 'producer', name: '=HYPERLINK("http://x.example","pay")' });
    const { filename, csv } = await admin.call('getRoyaltyStatementCsv', { partyId, period: monthBefore(0) });
    expect(filename).toMatch(/^statement-hyperlink-http-x-example-pay-\d{4}-\d{2}-draft\.csv$/);
    expect(csv).toContain(`statement,"'=HYPERLINK(""http://x.example"",""pay"")"`);
    expect(csv).toContain('closing_balance,0.00\r\n');
  });
});

describe('payout runs', () => {
  it('pay each party with an account its balance once; the rest accrue; a refused transfer gives the amount back', async () => {
    const releaseId = (
      await admin.call('saveRelease', {
        kind: 'single',
        title: 'Payout Single',
        artist: 'Payout Band',
        releaseDate: '2026-01-01',
        priceCents: 1000,
        published: true,
        tracks: [{ title: 'A' }],
      })
    ).id;
    const { release } = await admin.call('getRelease', { id: releaseId });
    const parties = {
      paid: (await admin.call('saveRoyaltyParty', { kind: 'producer', name: 'Paid Producer' })).id,
      accrues: (await admin.call('saveRoyaltyParty', { kind: 'producer', name: 'Accruing Producer' })).id,
      small: (await admin.call('saveRoyaltyParty', { kind: 'producer', name: 'Small Producer' })).id,
      refused: (await admin.call('saveRoyaltyParty', { kind: 'producer', name: 'Refused Producer' })).id,
    };
    await insertRule(
      app.db,
      ZONE,
      {
        subject: { kind: 'release', id: releaseId },
        effectiveFrom: '2020-01-01',
        shares: [
          { partyId: parties.paid, shareBp: 4500 },
          { partyId: parties.accrues, shareBp: 3000 },
          { partyId: parties.small, shareBp: 100 },
          { partyId: parties.refused, shareBp: 2400 },
        ],
        reserveBp: 0,
        reserveDays: 0,
      },
      { operator: 'cli' },
    );
    const period = monthBefore(1);
    // $100.00 of goods last month: $45.00, $30.00, $1.00 (under the $5.00 minimum) and $24.00.
    await order(release!.productId!, 1000, 10, new Date(`${period}-12T17:00:00Z`));
    await admin.call('setRoyaltyPayoutAccount', { partyId: parties.paid, accountId: 'acct_paid_producer' });
    await admin.call('setRoyaltyPayoutAccount', { partyId: parties.small, accountId: 'acct_small_producer' });
    // An account the provider refuses (set around the form's check, as a closed Stripe account would be).
    await app.db.update(royaltyParties).set({ payoutAccountId: 'closed_account' }).where(eq(royaltyParties.id, parties.refused));

    const run = await admin.call('runRoyaltyPayouts', { period });
    expect(run).toMatchObject({ period, minimumCents: 500, paid: 1, pending: 0, failed: 1 });
    expect(run.accrued).toEqual(
      expect.arrayContaining([
        { partyId: parties.accrues, partyName: 'Accruing Producer', balanceCents: 3000, reason: 'no-account' },
        { partyId: parties.small, partyName: 'Small Producer', balanceCents: 100, reason: 'under-minimum' },
        { partyId: parties.refused, partyName: 'Refused Producer', balanceCents: 2400, reason: 'not-paid' },
      ]),
    );
    const transfers = await app.db
      .select()
      .from(localTransfers)
      .where(eq(localTransfers.transferGroup, `royalties-rpr_${period}`));
    expect(transfers.map((row) => [row.accountId, row.amountCents, row.asked])).toEqual([['acct_paid_producer', 4500, 1]]);
    // A second run of the period (another press, another instance) pays nobody again.
    const again = await admin.call('runRoyaltyPayouts', { period });
    expect(again).toMatchObject({ paid: 1, failed: 1 });
    expect(
      await app.db
        .select()
        .from(localTransfers)
        .where(eq(localTransfers.transferGroup, `royalties-rpr_${period}`)),
    ).toHaveLength(1);
    // The ledger: the paid party's balance is spent, the refused one's is back.
    const balances = (await admin.call('listRoyalties', null)).balances;
    expect(balances.find((row) => row.partyId === parties.paid)?.balanceCents).toBe(0);
    expect(balances.find((row) => row.partyId === parties.refused)?.balanceCents).toBe(2400);
    const refused = await app.db.select().from(royaltyPayouts).where(eq(royaltyPayouts.partyId, parties.refused));
    expect(refused).toMatchObject([{ status: 'failed', amountCents: 2400 }]);
    const payoutEntries = await app.db
      .select()
      .from(royaltyEntries)
      .where(and(eq(royaltyEntries.kind, 'payout'), eq(royaltyEntries.partyId, parties.paid)));
    expect(payoutEntries.map((entry) => entry.amountCents)).toEqual([-4500]);
    // The payout is on the paid party's statement of this month.
    const statement = await admin.call('getRoyaltyStatement', { partyId: parties.paid, period: monthBefore(0) });
    expect(statement).toMatchObject({ openingCents: 0, earningsCents: 4500, payoutsCents: 4500, closingCents: 0 });
    expect(statement.payouts).toEqual([{ id: expect.stringMatching(/^rpo_/), amountCents: 4500, at: expect.any(String) }]);
    const listed = await admin.call('listRoyaltyPayouts', null);
    expect(listed.payouts.find((row) => row.partyId === parties.paid)).toMatchObject({ status: 'paid', transferId: expect.stringMatching(/^tr_local_rpo_/) });
  });
});
