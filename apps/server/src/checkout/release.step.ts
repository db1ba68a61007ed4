import { releaseStock } from '../catalog/variants.service.ts';
import type { Db } from '../db/client.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import type { PaymentProvider } from '../payments/provider.ts';
import { releaseUses } from '../discounts/discounts.service.ts';
import { dropPendingGiftCards } from '../giftcards/giftcards.service.ts';
import { release } from '../wallet/wallet.service.ts';
import { heldDemand } from './cart.ts';
import { checkoutIs, endPending, otherCheckoutsOf, recordAttention, type EndedCheckout } from './checkouts.service.ts';

export interface ReleaseDeps {
  db: Db;
  provider: PaymentProvider;
}

/**
 * Step "release" and its undo of "take wallet" and "take stock": the checkouts just ended (by
 * the one conditional update that ends each, so this runs once per checkout) give their held
 * credit and units back. A variant whose held count cannot cover the release is not failed
 * for ever: it is recorded for a person (needs attention) and the reconciler puts it right.
 */
export async function releaseHolds(tx: Tx, ended: EndedCheckout[]): Promise<void> {
  for (const checkout of ended) {
    await release(tx, checkout.userId, checkout.walletHeldCents, checkout.id);
    // Its discount code's held use (issue 27): after the wallet's row, before the variants'.
    if (checkout.discountCode) await releaseUses(tx, [checkout.id]);
    // Its gift cards (decision 053) were never live: they go with it (issue 40 item 3).
    if (checkout.items.some((item) => item.giftCard)) await dropPendingGiftCards(tx, [checkout.id]);
    const demand = heldDemand(checkout.items);
    if (demand.length === 0) continue;
    const missing = await releaseStock(tx, demand);
    for (const variantId of missing) {
      console.error(`Checkout ${checkout.id} ended, but variant ${variantId} did not hold its units: recorded as needing attention.`);
      await recordAttention(tx, {
        kind: 'release-without-hold',
        subject: `${checkout.id}:${variantId}`,
        detail: `Checkout ${checkout.id} ended but variant ${variantId} held fewer units than it set aside.`,
      });
    }
  }
}

/** Step "replace" of a card checkout: the buyer's open checkout (one per account) ends here and gives its holds back first. */
export async function replaceOpenCheckout(tx: Tx, userId: string, checkoutId: string): Promise<EndedCheckout[]> {
  const replaced = await endPending(tx, otherCheckoutsOf(userId, checkoutId), 'cancelled');
  await releaseHolds(tx, replaced);
  return replaced;
}

/** Step "release": ends a pending checkout without an order and gives back what it held. False when it was not pending. */
export async function closeCheckout(db: Db, checkoutId: string, status: 'failed' | 'expired'): Promise<boolean> {
  const ended = await runTransaction(db, async (tx) => {
    const rows = await endPending(tx, checkoutIs(checkoutId), status);
    await releaseHolds(tx, rows);
    return rows;
  });
  return ended.length > 0;
}

/** After the end committed: the provider's pages can no longer be paid (a payment that got there first comes as a late payment). */
export async function closeProviderSessions(deps: ReleaseDeps, ended: Pick<EndedCheckout, 'id' | 'providerSessionId'>[]): Promise<void> {
  for (const { id, providerSessionId } of ended) {
    if (!providerSessionId) continue;
    await deps.provider.expireSession(providerSessionId).catch((error: unknown) => {
      console.warn(`Could not close the payment session of ended checkout ${id}:`, error);
    });
  }
}
