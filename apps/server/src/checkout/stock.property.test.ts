import { eq, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, testConfig, type TestDatabase } from '../../test/database.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { unitsSoldOf } from '../orders/orders.service.ts';
import { setStock } from '../catalog/variants.service.ts';
import { checkouts, productVariants } from '../db/schema/index.ts';
import { startJobQueue, type JobQueue } from '../jobs/queue.ts';
import { createLocalProvider } from '../payments/local.provider.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { completeWalletOnlyOrder, createPaymentLink, quoteCheckout, type CheckoutDeps } from './checkout.flow.ts';
import { closeCheckout } from './release.step.ts';
import { applyPaymentEvent } from './payment.flow.ts';

/**
 * Issue 15, point 5: over random sequences of wallet-only orders, card checkouts, expiries,
 * payments (on time and late), restocks and refunds of late payments, for the variant:
 * stock + held + sold = received, and neither stock nor held is ever negative.
 */
let database: TestDatabase;
let jobs: JobQueue;
let deps: CheckoutDeps;
let buyer: string;
let admin: string;
const contact = { name: 'Fan', email: 'prop@example.org', phone: '' };
const shipping = { name: 'Fan', line1: '1 Main St', line2: '', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' };

beforeAll(async () => {
  database = await createTestDatabase({ max: 10 });
  const config = testConfig({ env: {} });
  buyer = (
    await createAccount(
      database.db,
      config,
      { email: 'prop@example.org', username: 'Prop', name: 'Prop', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true },
    )
  ).userId;
  admin = (
    await createAccount(
      database.db,
      config,
      { email: 'propadmin@example.org', username: 'PropAdmin', name: 'Admin', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
      { emailVerified: true },
    )
  ).userId;
  await grantCredits(database.db, 'prop@example.org', '100000', 'prop-grant');
  jobs = await startJobQueue(database.db.$client, () => undefined);
  deps = { db: database.db, jobs, provider: createLocalProvider('prop-secret'), publicUrl: 'http://127.0.0.1:9' };
});

afterAll(async () => {
  await jobs?.stop();
  await database?.close();
});

type Command =
  { kind: 'wallet'; qty: number } | { kind: 'card'; qty: number } | { kind: 'expire'; pick: number } | { kind: 'pay'; pick: number } | { kind: 'restock'; qty: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant('wallet' as const), qty: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('card' as const), qty: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('expire' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('pay' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('restock' as const), qty: fc.integer({ min: 1, max: 4 }) }),
);

async function ledgerOf(variantId: string) {
  const { rows } = await database.db.execute<{ stock: number; held: number; sold: number; received: number }>(sql`
    SELECT v.stock, v.held,
      (SELECT coalesce(sum(qty), 0)::int FROM order_item WHERE variant_id = v.id) AS sold,
      (SELECT coalesce(sum(coalesce(to_stock, 0) - coalesce(from_stock, 0)), 0)::int FROM stock_movement WHERE variant_id = v.id) AS received
    FROM product_variant v WHERE v.id = ${variantId}`);
  return rows[0]!;
}

let run = 0;
it('keeps stock + held + sold = received over random sequences', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 4 }), fc.array(command, { minLength: 1, maxLength: 14 }), async (initial, commands) => {
      run += 1;
      const productId = await releaseProduct(
        database.db,
        {
          name: 'Prop Tee',
          description: 'Tee',
          priceCents: 1000,
          images: ['/a.svg'],
          options: [{ name: 'Size', values: ['L'] }],
          variants: [{ options: ['L'], sku: '', priceCents: null, stock: initial }],
        },
        undefined,
        { userId: admin },
      );
      const [variant] = await database.db.select().from(productVariants).where(eq(productVariants.productId, productId));
      const items = [{ id: productId, variantId: variant!.id, qty: 1 }];
      const opened: string[] = [];
      for (const [step, next] of commands.entries()) {
        const id = `r${run}s${step}`;
        if (next.kind === 'wallet') {
          const lines = [{ ...items[0]!, qty: next.qty }];
          await quoteCheckout(database.db, buyer, lines, true)
            .then((reviewed) => completeWalletOnlyOrder(deps, buyer, { items: lines, contact, shipping, quote: reviewed, checkoutId: `${id}-wallet` }))
            .catch((error: Error) => expect(error.message).toMatch(/Prop Tee - L/));
        } else if (next.kind === 'card') {
          await createPaymentLink(deps, buyer, { items: [{ ...items[0]!, qty: next.qty }], useWallet: false, contact, shipping, checkoutId: `${id}-card` })
            .then((link) => void opened.push(link.checkoutId))
            .catch((error: Error) => expect(error.message).toMatch(/Prop Tee - L/));
        } else if (next.kind === 'expire' && opened.length > 0) {
          await closeCheckout(database.db, opened[next.pick % opened.length]!, 'expired');
        } else if (next.kind === 'pay' && opened.length > 0) {
          // On time or late, sold or refunded: whatever the checkout's state is by now.
          const checkoutId = opened[next.pick % opened.length]!;
          await applyPaymentEvent(deps, { eventId: `${id}-evt`, type: 'succeeded', checkoutId, sessionId: null, paymentIntentId: `pi_${id}`, amountCents: null });
        } else if (next.kind === 'restock') {
          const now = (await ledgerOf(variant!.id)).stock;
          await setStock(database.db, { userId: admin }, { variantId: variant!.id, stock: now + next.qty, reason: 'restock' }, unitsSoldOf);
        }
        const state = await ledgerOf(variant!.id);
        expect(state.stock).toBeGreaterThanOrEqual(0);
        expect(state.held).toBeGreaterThanOrEqual(0);
        expect(state.stock + state.held + state.sold).toBe(state.received);
      }
      // Held = the units of the checkouts still pending.
      const pending = await database.db.select({ items: checkouts.items }).from(checkouts).where(eq(checkouts.status, 'pending'));
      const pendingUnits = pending
        .flatMap((c) => c.items)
        .filter((line) => line.variantId === variant!.id)
        .reduce((sum, line) => sum + line.qty, 0);
      expect((await ledgerOf(variant!.id)).held).toBe(pendingUnits);
    }),
    { numRuns: 25, seed: 15 },
  );
}, 300_000);
