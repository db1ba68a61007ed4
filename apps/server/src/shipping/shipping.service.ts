import { eq, sql } from 'drizzle-orm';
import { DEFAULT_SHIPPING_TAX_CONFIG, type ShippingTaxConfig } from '@storefront/domain/shipping-tax.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { shippingTaxSettings } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';

/** Issue 26 (decision 051): the one shipping-and-tax document; version 0 is the spec's default, never saved. */
export const SHIPPING_SETTINGS_MESSAGES = {
  stale: 'Someone else saved shipping and tax since you opened them. Reload to see their changes, then edit again.',
} as const;

export async function shippingTaxConfig(db: Db | Tx): Promise<{ config: ShippingTaxConfig; version: number }> {
  const [row] = await db.select({ config: shippingTaxSettings.config, version: shippingTaxSettings.version }).from(shippingTaxSettings).where(eq(shippingTaxSettings.id, 'main'));
  return row ?? { config: DEFAULT_SHIPPING_TAX_CONFIG, version: 0 };
}

/**
 * Saves the whole document if it is still at `version` (an upsert conditional on the version):
 * two admins saving from the same version, one wins and the other is told to reload. Audited;
 * an open checkout prices with it on its next quote (and a quote made before is refused as stale).
 */
export async function saveShippingTaxConfig(db: Db, input: { config: ShippingTaxConfig; version: number }, actor: Actor) {
  return runTransaction(db, async (tx) => {
    const before = await shippingTaxConfig(tx);
    const saved = await tx
      .insert(shippingTaxSettings)
      .values({ id: 'main', config: input.config, version: input.version + 1 })
      .onConflictDoUpdate({
        target: shippingTaxSettings.id,
        set: { config: input.config, version: sql`${shippingTaxSettings.version} + 1`, updatedAt: sql`now()` },
        setWhere: eq(shippingTaxSettings.version, input.version),
      })
      .returning({ version: shippingTaxSettings.version });
    // A first save must come from version 0, a later one from the stored version.
    if (saved.length === 0 || saved[0]!.version !== input.version + 1) throw new AppError('aborted', SHIPPING_SETTINGS_MESSAGES.stale);
    await recordAudit(tx, { actor, action: 'shipping.save', targetType: 'shipping', targetId: 'main', before: before.config, after: input.config });
    return { config: input.config, version: saved[0]!.version };
  });
}
