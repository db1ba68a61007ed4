import { randomBytes } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { creditSummaries, datEarnings, localTransfers, payoutAccounts, payoutRequests, users } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { publishLive } from '../live/live.publish.ts';
import { TransferRefusedError, type OnboardingReturn, type PayoutProvider } from '../payments/provider.ts';
import { formatUsd } from '@storefront/domain/catalog.ts';

export interface PayoutDeps {
  db: Db;
  provider: PayoutProvider;
  providerName: 'local' | 'stripe';
}

/** The local transfers' test knobs: how long the answer takes after the transfer is made, and how long a key is kept. */
export interface LocalPayoutOptions {
  /** The answer comes this long after the transfer was recorded (a process killed meanwhile made it without learning so). */
  answerDelayMs?: number;
  /** As Stripe's 24 hours: a key older than this makes a new transfer. */
  keyWindowMs?: number;
}

const STRIPE_KEY_WINDOW_MS = 24 * 3_600_000;

/**
 * The built-in stand-in for Connect: payouts are enabled on our own onboarding page; transfers
 * are rows of local_transfer (shared by instances), each counting how often it was asked for.
 */
export function createLocalPayouts(db: Db, options: LocalPayoutOptions = {}): PayoutProvider {
  return {
    async createAccount(userId) {
      return { accountId: `acct_local_${userId}` };
    },
    async accountStatus(accountId) {
      const [row] = await db.select().from(payoutAccounts).where(eq(payoutAccounts.providerAccountId, accountId));
      return { payoutsEnabled: row?.payoutsEnabled ?? false };
    },
    async onboardingLink(_accountId, returnPath) {
      return { url: returnPath === '/portal' ? '/payouts/onboard?return=portal' : '/payouts/onboard' };
    },
    async transfer(accountId, amountCents, requestId, transfer = {}) {
      if (!Number.isSafeInteger(amountCents) || amountCents <= 0) throw new TransferRefusedError('A transfer must be a positive amount.');
      if (!accountId.startsWith('acct_')) throw new TransferRefusedError(`No such destination: '${accountId}'.`);
      const key = transfer.idempotencyKey ?? `payout-${requestId}`;
      const windowMs = options.keyWindowMs ?? STRIPE_KEY_WINDOW_MS;
      const transferId = await runTransaction(
        db,
        async (tx) => {
          // One call per key at a time, as Stripe answers a concurrent repeat with a conflict.
          await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`local-transfer:${key}`}))`);
          const [seen] = await tx
            .update(localTransfers)
            .set({ asked: sql`${localTransfers.asked} + 1` })
            .where(and(eq(localTransfers.idempotencyKey, key), sql`${localTransfers.createdAt} > now() - ${windowMs}::float8 * interval '1 millisecond'`))
            .returning({ transferId: localTransfers.transferId });
          if (seen) return seen.transferId;
          // Past the key's window a repeat is a new transfer (the first keeps the plain id).
          const made = Number((await tx.execute<{ made: string }>(sql`SELECT count(*)::text AS made FROM local_transfer WHERE idempotency_key = ${key}`)).rows[0]!.made);
          const id = made === 0 ? `tr_local_${requestId}` : `tr_local_${requestId}_${made + 1}`;
          await tx.insert(localTransfers).values({ transferId: id, idempotencyKey: key, requestId, transferGroup: transfer.transferGroup ?? null, accountId, amountCents });
          return id;
        },
        { isolationLevel: 'read committed' },
      );
      if (options.answerDelayMs) await new Promise((resolve) => setTimeout(resolve, options.answerDelayMs));
      return { transferId };
    },
    async findTransfer(transferGroup, requestId) {
      const [found] = await db
        .select({ transferId: localTransfers.transferId })
        .from(localTransfers)
        .where(and(eq(localTransfers.transferGroup, transferGroup), eq(localTransfers.requestId, requestId)))
        .limit(1);
      return found ?? null;
    },
  };
}

/** createOrRetrieveAccount: one account per user, even under concurrent calls. */
export async function getOrCreatePayoutAccount(deps: PayoutDeps, userId: string, email: string) {
  let [account] = await deps.db.select().from(payoutAccounts).where(eq(payoutAccounts.userId, userId));
  if (!account) {
    // The provider call is idempotent per user, and the primary key settles a race here.
    const { accountId } = await deps.provider.createAccount(userId, email);
    await deps.db.insert(payoutAccounts).values({ userId, provider: deps.providerName, providerAccountId: accountId }).onConflictDoNothing();
    [account] = await deps.db.select().from(payoutAccounts).where(eq(payoutAccounts.userId, userId));
  }
  const { payoutsEnabled } = await deps.provider.accountStatus(account!.providerAccountId);
  if (payoutsEnabled !== account!.payoutsEnabled) {
    await deps.db.update(payoutAccounts).set({ payoutsEnabled }).where(eq(payoutAccounts.userId, userId));
  }
  return { stripeAccountId: account!.providerAccountId, payouts_enabled: payoutsEnabled };
}

/** createStripeOnboardingLinkIOS: the provider's onboarding page for the user's payout account (made first if needed). */
export async function onboardingLinkFor(deps: PayoutDeps, userId: string, returnPath?: OnboardingReturn) {
  const [user] = await deps.db.select({ email: users.email }).from(users).where(eq(users.id, userId));
  const account = await getOrCreatePayoutAccount(deps, userId, user!.email);
  return { ...(await deps.provider.onboardingLink(account.stripeAccountId, returnPath)), accountId: account.stripeAccountId };
}

/** The user's payout account and whether its payouts are enabled (as last learned); null: none yet. */
export async function payoutAccountOf(db: Db, userId: string) {
  const [account] = await db.select().from(payoutAccounts).where(eq(payoutAccounts.userId, userId));
  return account ? { accountId: account.providerAccountId, payoutsEnabled: account.payoutsEnabled } : null;
}

export async function enableLocalPayouts(db: Db, userId: string): Promise<boolean> {
  const rows = await db
    .update(payoutAccounts)
    .set({ payoutsEnabled: true })
    .where(and(eq(payoutAccounts.userId, userId), eq(payoutAccounts.provider, 'local')))
    .returning();
  // Onboarding happens in another tab: the wallet and cash-out pages left open learn of it live.
  if (rows.length > 0) await publishLive(db, { topic: 'wallet', userId, id: userId });
  return rows.length > 0;
}

/**
 * What the user earned (DAT edition earnings attributed to them when earned, decision 019,
 * plus sales earnings) less every payout not failed; never below zero. An edition's earnings
 * stay with the owner who earned them: moving it moves none of them, and what was paid out
 * is never available again.
 */
async function availableCents(tx: Db | Tx, userId: string): Promise<number> {
  const [row] = await tx
    .select({
      cents: sql<string>`GREATEST(0,
        (SELECT COALESCE(SUM(${datEarnings.cents}), 0) FROM ${datEarnings} WHERE ${datEarnings.ownerId} = ${userId})
        + (SELECT COALESCE(MAX(${creditSummaries.salesEarningsCents}), 0) FROM ${creditSummaries} WHERE ${creditSummaries.userId} = ${userId})
        - (SELECT COALESCE(SUM(${payoutRequests.amountCents}), 0) FROM ${payoutRequests} WHERE ${payoutRequests.userId} = ${userId} AND ${payoutRequests.status} <> 'failed'))::text`,
    })
    .from(sql`(SELECT 1) AS one`);
  return Number(row?.cents ?? 0);
}

export async function cashoutOverview(db: Db, userId: string) {
  const [account] = await db.select().from(payoutAccounts).where(eq(payoutAccounts.userId, userId));
  const requests = await db.select().from(payoutRequests).where(eq(payoutRequests.userId, userId)).orderBy(desc(payoutRequests.createdAt)).limit(50);
  return {
    hasAccount: Boolean(account),
    payoutsEnabled: account?.payoutsEnabled ?? false,
    availableCents: await availableCents(db, userId),
    requests: requests.map((r) => ({ id: r.id, amountCents: r.amountCents, status: r.status, createdAt: r.createdAt.toISOString() })),
  };
}

/**
 * Records a payout request: the account row is locked while the available amount is
 * computed and the request written, so concurrent requests can never exceed it.
 */
export async function requestPayout(deps: PayoutDeps, userId: string, amountCents?: number) {
  const request = await runTransaction(
    deps.db,
    async (tx) => {
      const [account] = await tx.select().from(payoutAccounts).where(eq(payoutAccounts.userId, userId)).for('update');
      if (!account) throw new AppError('failed-precondition', 'Connect a payout account first.');
      if (!account.payoutsEnabled) throw new AppError('failed-precondition', 'Finish setting up your payout account first.');
      const available = await availableCents(tx, userId);
      const amount = amountCents ?? available;
      if (amount <= 0) throw new AppError('failed-precondition', 'You have no earnings to cash out yet.');
      if (amount > available) throw new AppError('failed-precondition', `You can cash out at most ${formatUsd(available)}.`);
      const id = `po_${randomBytes(9).toString('base64url')}`;
      await tx.insert(payoutRequests).values({ id, userId, amountCents: amount });
      // Heard on commit: the open wallet pages show the amount as requested at once.
      await publishLive(tx, { topic: 'wallet', userId, id });
      return { id, amount, accountId: account.providerAccountId };
    },
    { isolationLevel: 'read committed' },
  );
  try {
    const { transferId } = await deps.provider.transfer(request.accountId, request.amount, request.id);
    await deps.db.update(payoutRequests).set({ status: 'paid', providerTransferId: transferId, settledAt: new Date() }).where(eq(payoutRequests.id, request.id));
  } catch (error) {
    console.warn(`Payout ${request.id} of ${request.amount} cents to ${request.accountId} failed:`, error);
    // The amount becomes available again; the request shows as failed.
    await deps.db.update(payoutRequests).set({ status: 'failed', settledAt: new Date() }).where(eq(payoutRequests.id, request.id));
    throw new AppError('unavailable', 'The payout could not be sent. Please try again later.');
  } finally {
    await publishLive(deps.db, { topic: 'wallet', userId, id: request.id });
  }
  return { id: request.id, amountCents: request.amount };
}
