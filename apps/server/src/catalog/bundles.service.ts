import { asc, eq, inArray } from 'drizzle-orm';
import { BUNDLE_MESSAGES, bundleStock, planBundle, type ComponentChoice, type ComponentProduct } from '@storefront/domain/bundles.ts';
import { RELEASE_MESSAGES } from '@storefront/domain/catalog.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';
import type { Db } from '../db/client.ts';
import { bundleComponents, products, productVariants } from '../db/schema/index.ts';
import { runTransaction, type Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { publishLive } from '../live/live.publish.ts';
import { partsOf, replaceVariants, type PartWithStock } from './variants.service.ts';

/**
 * Bundles (issue 27, decision 055): a bundle is a product whose variants take other products'
 * variants (bundle_component). It has no stock of its own: a bundle sold takes every counted
 * component's units with the stock code's one conditional UPDATE per variant, in id order.
 */

/**
 * What the shop shows of a bundle variant: its stock is what its components allow (Sold out
 * when a needed component is). A bundle variant without parts (never expected) shows sold out.
 */
export function shownStock(parts: PartWithStock[] | undefined): number | null {
  if (!parts || parts.length === 0) return 0;
  return bundleStock(parts);
}

/** Every product a bundle may take (not a bundle, not digital), with its variants: the console's choice. */
async function componentProducts(tx: Db | Tx, productIds: string[]): Promise<Map<string, ComponentProduct & { bundle: boolean; digital: boolean; limited: boolean }>> {
  const map = new Map<string, ComponentProduct & { bundle: boolean; digital: boolean; limited: boolean }>();
  if (productIds.length === 0) return map;
  const rows = await tx
    .select({
      id: products.id,
      name: products.name,
      bundle: products.bundle,
      digital: products.digital,
      variantId: productVariants.id,
      options: productVariants.optionValues,
      limit: productVariants.perCustomerLimit,
    })
    .from(products)
    .innerJoin(productVariants, eq(productVariants.productId, products.id))
    .where(inArray(products.id, productIds))
    .orderBy(asc(products.id), asc(productVariants.position));
  for (const row of rows) {
    const product = map.get(row.id) ?? { id: row.id, name: row.name, bundle: row.bundle, digital: row.digital, limited: false, variants: [] };
    product.variants.push({ id: row.variantId, options: row.options });
    product.limited ||= row.limit !== null;
    map.set(row.id, product);
  }
  return map;
}

/**
 * Makes a product a bundle of these components, or changes its components (admin, audited):
 * its options become the picked components, its variants their combinations (kept by option
 * values, so a cart line of an unchanged combination stays valid), each without stock of its
 * own. A pending checkout keeps the parts it was priced with (its line holds them).
 */
export async function saveBundle(db: Db, actor: Actor, input: { productId: string; components: ComponentChoice[] }): Promise<void> {
  await runTransaction(
    db,
    async (tx) => {
      const [row] = await tx.select().from(products).where(eq(products.id, input.productId)).for('update');
      if (!row) throw new AppError('not-found', RELEASE_MESSAGES.notFound);
      if (row.digital) throw new AppError('failed-precondition', BUNDLE_MESSAGES.componentIsDigital);
      if (input.components.some((choice) => choice.productId === input.productId)) throw new AppError('invalid-argument', BUNDLE_MESSAGES.componentIsItself);
      const ownVariants = await tx.select({ id: productVariants.id }).from(productVariants).where(eq(productVariants.productId, input.productId));
      const [inOther] = await tx
        .select({ id: bundleComponents.componentVariantId })
        .from(bundleComponents)
        .where(
          inArray(
            bundleComponents.componentVariantId,
            ownVariants.map((variant) => variant.id),
          ),
        )
        .limit(1);
      if (inOther) throw new AppError('failed-precondition', BUNDLE_MESSAGES.componentIsBundle);
      const candidates = await componentProducts(tx, [...new Set(input.components.map((choice) => choice.productId))]);
      for (const product of candidates.values()) {
        if (product.bundle) throw new AppError('invalid-argument', BUNDLE_MESSAGES.componentIsBundle);
        if (product.digital) throw new AppError('invalid-argument', BUNDLE_MESSAGES.componentIsDigital);
        if (product.limited) throw new AppError('invalid-argument', BUNDLE_MESSAGES.componentLimited);
      }
      let plan: ReturnType<typeof planBundle>;
      try {
        plan = planBundle(input.components, candidates);
      } catch (error) {
        throw new AppError('invalid-argument', (error as Error).message);
      }
      const before = { bundle: row.bundle, options: row.options, components: await choicesOf(tx, input.productId) };
      await tx.update(products).set({ bundle: true, options: plan.options, updatedAt: new Date() }).where(eq(products.id, input.productId));
      const actorId = 'userId' in actor ? actor.userId : null;
      await replaceVariants(
        tx,
        input.productId,
        plan.variants.map((variant) => ({ options: variant.options, sku: '', priceCents: null, stock: null })),
        actorId,
      );
      const variants = await tx
        .select({ id: productVariants.id, options: productVariants.optionValues })
        .from(productVariants)
        .where(eq(productVariants.productId, input.productId));
      await tx.delete(bundleComponents).where(
        inArray(
          bundleComponents.bundleVariantId,
          variants.map((variant) => variant.id),
        ),
      );
      const rows = plan.variants.flatMap((planned) => {
        const variant = variants.find((candidate) => candidate.options.length === planned.options.length && candidate.options.every((value, i) => value === planned.options[i]))!;
        return planned.parts.map((part, position) => ({ bundleVariantId: variant.id, position, componentVariantId: part.variantId, qty: part.qty }));
      });
      await tx.insert(bundleComponents).values(rows);
      await recordAudit(tx, {
        actor,
        action: 'bundle.save',
        targetType: 'product',
        targetId: input.productId,
        before,
        after: { bundle: true, options: plan.options, components: input.components },
      });
      await publishLive(tx, { topic: 'products', id: input.productId });
    },
    { isolationLevel: 'read committed' },
  );
}

/** The console's view of a bundle's components: a part the same in every variant is fixed, the others picked. */
async function choicesOf(db: Db | Tx, productId: string): Promise<ComponentChoice[]> {
  const variants = await db.select({ id: productVariants.id }).from(productVariants).where(eq(productVariants.productId, productId)).orderBy(asc(productVariants.position));
  const parts = await partsOf(
    db,
    variants.map((variant) => variant.id),
  );
  const all = variants.map((variant) => parts.get(variant.id) ?? []);
  const first = all[0] ?? [];
  return first.map((part, position) => {
    const same = all.every((variantParts) => variantParts[position]?.variantId === part.variantId);
    return { productId: part.productId, variantId: same && all.length > 0 ? part.variantId : null, qty: part.qty };
  });
}

export interface BundleView {
  productId: string;
  name: string;
  isActive: boolean;
  components: (ComponentChoice & { name: string })[];
}

/** The bundles with their components, and the products a bundle may take (the console's Bundles tab). */
export async function listBundles(
  db: Db,
): Promise<{ bundles: BundleView[]; products: { id: string; name: string; bundle: boolean; variants: { id: string; label: string }[] }[] }> {
  const rows = await db
    .select({ id: products.id, name: products.name, bundle: products.bundle, isActive: products.isActive })
    .from(products)
    .where(eq(products.digital, false))
    .orderBy(asc(products.name), asc(products.id));
  const all = await componentProducts(
    db,
    rows.map((row) => row.id),
  );
  const bundles: BundleView[] = [];
  for (const row of rows.filter((candidate) => candidate.bundle)) {
    const choices = await choicesOf(db, row.id);
    bundles.push({
      productId: row.id,
      name: row.name,
      isActive: row.isActive,
      components: choices.map((choice) => ({ ...choice, name: all.get(choice.productId)?.name ?? choice.productId })),
    });
  }
  return {
    bundles,
    products: rows.map((row) => ({
      id: row.id,
      name: row.name,
      bundle: row.bundle,
      variants: (all.get(row.id)?.variants ?? []).map((variant) => ({ id: variant.id, label: variant.options.join(' / ') || row.name })),
    })),
  };
}
