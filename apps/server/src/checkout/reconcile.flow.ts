import { RefusedCheckoutTransition } from '@storefront/domain/checkout-states.ts';
import { correctHeld, countedVariants } from '../catalog/variants.service.ts';
import { runTransaction } from '../db/transaction.ts';
import { checkoutsHoldingUses, codeUseBreaks, releaseUses } from '../discounts/discounts.service.ts';
import { unitsSold } from '../orders/orders.service.ts';
import { heldCredit } from '../wallet/wallet.service.ts';
import type { CheckoutDeps } from './checkout.flow.ts';
import { dueCheckouts, liveHeldCredit, liveHeldUnits, pendingAmong, quietCheckouts, recordAttention, settledWithoutOutcome, type Checkout } from './checkouts.service.ts';
import { applyPaymentEvent, expireCheckout, succeededEvent } from './payment.flow.ts';

/**
 * The reconciler (issue 23, decision 044): a job every minute that heals and tells.
 *
 * 1. Holds past their deadline (the release job missed them: a crash, a provider outage) end,
 *    oldest deadline first, every one of them (in batches, no cap), each on its own: one that
 *    fails is logged as an error, recorded as needing attention and does not stop the rest.
 * 2. Open checkouts whose payment event may have been missed: the provider is asked, and a
 *    completed payment is applied (an order, or a refund).
 * 3. The invariant is checked: no settled payment without its outcome; for every variant,
 *    `held` = the units the open checkouts hold (put right when not), `sold` = the units its
 *    orders bought; every wallet's held credit = what its open checkouts hold. Each break is
 *    logged as an error and shown in the console as "needs attention".
 */
export interface ReconcileReport {
  settled: number;
  expired: number;
  failed: number;
  findings: number;
}

const BATCH = 100;
/** A checkout this old whose payment event never came is asked about (the provider's page may have been paid). */
const QUIET_MS = 5 * 60 * 1000;

async function eachOnItsOwn(deps: CheckoutDeps, checkout: Checkout, report: ReconcileReport, work: () => Promise<'settled' | 'expired' | 'none'>) {
  try {
    const outcome = await work();
    if (outcome === 'settled') report.settled += 1;
    if (outcome === 'expired') report.expired += 1;
  } catch (error) {
    report.failed += 1;
    console.error(`Reconciling checkout ${checkout.id} failed (tried again next run):`, error);
    await recordAttention(deps.db, {
      // A change the transition table refuses is its own kind: a person decides what the checkout is.
      kind: error instanceof RefusedCheckoutTransition ? 'checkout-transition' : 'checkout-stuck',
      subject: checkout.id,
      detail: `Could not settle: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500),
    }).catch(() => undefined);
  }
}

export async function reconcileCheckouts(deps: CheckoutDeps, now = new Date()): Promise<ReconcileReport> {
  const report: ReconcileReport = { settled: 0, expired: 0, failed: 0, findings: 0 };
  // 1. Every hold past its deadline, oldest first.
  let after: { expiresAt: Date; id: string } | undefined;
  for (;;) {
    const due = await dueCheckouts(deps.db, now, BATCH, after);
    for (const checkout of due) {
      await eachOnItsOwn(deps, checkout, report, async () => {
        const outcome = await expireCheckout(deps, checkout.id, now);
        return outcome === 'paid' ? 'settled' : outcome === 'expired' ? 'expired' : 'none';
      });
    }
    if (due.length < BATCH) break;
    after = { expiresAt: due.at(-1)!.expiresAt, id: due.at(-1)!.id };
  }
  // 2. Payments that may have completed without telling us.
  if (deps.provider.name !== 'local') {
    for (const checkout of await quietCheckouts(deps.db, now, new Date(now.getTime() - QUIET_MS), 500)) {
      await eachOnItsOwn(deps, checkout, report, async () => {
        if (!checkout.providerSessionId) return 'none';
        const state = await deps.provider.sessionState(checkout.providerSessionId);
        if (state.state !== 'paid') return 'none';
        return (await applyPaymentEvent(deps, succeededEvent(checkout, state.paymentIntentId))) === 'applied' ? 'settled' : 'none';
      });
    }
  }
  // 3. The invariant.
  report.findings = await checkInvariant(deps, now);
  return report;
}

async function finding(deps: CheckoutDeps, kind: string, subject: string, detail: string, healed = false): Promise<void> {
  console.error(`Money invariant: ${detail}`);
  await recordAttention(deps.db, { kind, subject, detail, healed });
}

/** A variant's `sold` is compared with its orders when it changed this recently (not every order of the shop every minute). */
const SOLD_WINDOW_MS = 15 * 60 * 1000;

/** Checks the invariant (step 3 above) on one consistent snapshot; returns how many breaks it found. */
export async function checkInvariant(deps: CheckoutDeps, now = new Date()): Promise<number> {
  const snapshot = await runTransaction(
    deps.db,
    async (tx) => {
      const variants = await countedVariants(tx);
      const recent = variants.filter((row) => row.updatedAt.getTime() >= now.getTime() - SOLD_WINDOW_MS).map((row) => row.variantId);
      // One statement at a time: a transaction is one connection.
      const unsettled = await settledWithoutOutcome(tx, new Date(now.getTime() - 7 * 24 * 3600 * 1000));
      const live = await liveHeldUnits(tx);
      const sold = await unitsSold(tx, recent);
      const held = await heldCredit(tx);
      const liveCredit = await liveHeldCredit(tx);
      return { variants, recent: new Set(recent), unsettled, live, sold, held, liveCredit };
    },
    { isolationLevel: 'repeatable read' },
  );
  let found = 0;
  for (const checkout of snapshot.unsettled) {
    found += 1;
    await finding(deps, 'payment-without-outcome', checkout.id, `Checkout ${checkout.id} is ${checkout.status} but has no ${checkout.status === 'paid' ? 'order' : 'refund'}.`);
  }
  for (const variant of snapshot.variants.filter((row) => row.held !== (snapshot.live.get(row.variantId) ?? 0))) {
    // Put right under the variant's lock, against the open checkouts as they are then.
    const corrected = await runTransaction(
      deps.db,
      (tx) => correctHeld(tx, variant.variantId, async () => (await liveHeldUnits(tx, variant.variantId)).get(variant.variantId) ?? 0),
      {
        isolationLevel: 'read committed',
      },
    );
    if (!corrected) continue;
    found += 1;
    await finding(deps, 'stock-held', variant.variantId, `Variant ${variant.variantId} held ${corrected.from} units but its open checkouts hold ${corrected.to}: put right.`, true);
  }
  for (const variant of snapshot.variants.filter((row) => snapshot.recent.has(row.variantId) && row.sold !== (snapshot.sold.get(row.variantId) ?? 0))) {
    found += 1;
    await finding(
      deps,
      'stock-sold',
      variant.variantId,
      `Variant ${variant.variantId} counts ${variant.sold} sold but its orders bought ${snapshot.sold.get(variant.variantId) ?? 0}.`,
    );
  }
  for (const userId of new Set([...snapshot.held.keys(), ...snapshot.liveCredit.keys()])) {
    const [held, live] = [snapshot.held.get(userId) ?? 0, snapshot.liveCredit.get(userId) ?? 0];
    if (held === live) continue;
    found += 1;
    await finding(deps, 'wallet-held', userId, `Wallet ${userId} holds ${held} cents but its open checkouts hold ${live}.`);
  }
  return found + (await checkCodeUses(deps));
}

/**
 * Discount codes (decision 052): a use held for a checkout that is no longer pending is given
 * back (healed, told); a code whose counter is not its live uses is told.
 */
async function checkCodeUses(deps: CheckoutDeps): Promise<number> {
  let found = 0;
  const holding = await checkoutsHoldingUses(deps.db);
  const pending = await pendingAmong(deps.db, holding);
  for (const checkoutId of holding.filter((id) => !pending.has(id))) {
    // Released only if still held and its checkout still not pending, in one transaction.
    const released = await runTransaction(deps.db, async (tx) => ((await pendingAmong(tx, [checkoutId])).size > 0 ? false : (await releaseUses(tx, [checkoutId]), true)));
    if (!released) continue;
    found += 1;
    await finding(deps, 'discount-held', checkoutId, `Checkout ${checkoutId} ended but still held a discount code use: given back.`, true);
  }
  for (const code of await codeUseBreaks(deps.db)) {
    found += 1;
    await finding(deps, 'discount-uses', code.codeId, `Discount code ${code.code} counts ${code.uses} uses but has ${code.live} held or made.`);
  }
  return found;
}
