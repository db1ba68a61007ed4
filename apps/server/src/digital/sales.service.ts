import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import type { Actor } from '../audit/audit.service.ts';
import { categoryExists } from '../catalog/categories.service.ts';
import { editProduct, releaseProduct, setProductActive } from '../catalog/catalog.service.ts';
import { markProductDigital, setProductNameYourPrice, setProductRelease } from '../catalog/product-flags.service.ts';
import type { Db } from '../db/client.ts';
import { digitalOwnership, releaseProducts } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { grantOwnership } from './library.service.ts';
import { findRelease, listTracks } from './releases.service.ts';

/**
 * Selling releases through the shop's own cart and checkout (issue 28, decision 057): the
 * album, and each track with a price, is a digital catalogue product (unlimited, no
 * shipping) linked to the release here; a physical product may carry a release too. An
 * order of a linked product grants the release (or track) to the buyer in the order's own
 * transaction, so a paid order and its download never part.
 */
const FALLBACK_ART = '/content/covers/cover-01.svg';

export async function syncReleaseProducts(db: Db, releaseId: number, actor: Actor): Promise<void> {
  const release = await findRelease(db, releaseId);
  if (!release) throw new AppError('not-found', 'This release does not exist.');
  const tracks = await listTracks(db, releaseId);
  const links = await db
    .select()
    .from(releaseProducts)
    .where(and(eq(releaseProducts.releaseId, releaseId), eq(releaseProducts.kind, 'sale')));
  const images = [release.artwork || FALLBACK_ART];
  const wanted = [
    ...(release.priceCents > 0
      ? [{ trackId: null, name: `${release.title} (digital ${release.kind})`, priceCents: release.priceCents, nameYourPrice: release.nameYourPrice }]
      : []),
    ...tracks.flatMap((track) =>
      track.priceCents && track.priceCents > 0
        ? [{ trackId: track.id, name: `${track.title} (digital track)`, priceCents: track.priceCents, nameYourPrice: track.nameYourPrice }]
        : [],
    ),
  ];
  // The release is one shop card that opens its page (issue 39 item 6): the album's, or without one its first track's.
  for (const [index, item] of wanted.entries()) {
    const name = item.name.slice(0, 120);
    const description = `${release.artist}: ${release.title}. Download in MP3, AAC, FLAC or ALAC at once after purchase.`;
    const link = links.find((entry) => entry.trackId === item.trackId);
    if (link) {
      await editProduct(db, { id: link.productId, name, description, priceCents: item.priceCents, images }, actor);
      await setProductActive(db, { id: link.productId, isActive: release.published }, actor);
      await setProductNameYourPrice(db, link.productId, item.nameYourPrice);
      await setProductRelease(db, link.productId, releaseId, index === 0);
    } else {
      // In the shop's Music category while the label keeps one.
      const category = (await categoryExists(db, 'music')) ? { category: 'music' } : {};
      const productId = await releaseProduct(db, { name, description, priceCents: item.priceCents, images, ...category }, undefined, actor);
      await markProductDigital(db, productId);
      await setProductRelease(db, productId, releaseId, index === 0);
      // The whole release, or a track sold alone, may be "name your price" (its price the minimum).
      if (item.nameYourPrice) await setProductNameYourPrice(db, productId, true);
      await db.insert(releaseProducts).values({ productId, releaseId, trackId: item.trackId, kind: 'sale' });
      if (!release.published) await setProductActive(db, { id: productId, isActive: false }, actor);
    }
  }
  // Products of tracks that lost their price or were removed, or of an album now free: withdrawn.
  for (const link of links) {
    if (!wanted.some((item) => item.trackId === link.trackId)) await setProductActive(db, { id: link.productId, isActive: false }, actor);
  }
}

/** A physical product that carries the release ("LP + instant download"); null unlinks it. */
export async function setBundledRelease(db: Db, productId: string, releaseId: number | null): Promise<void> {
  await db.delete(releaseProducts).where(and(eq(releaseProducts.productId, productId), eq(releaseProducts.kind, 'bundle')));
  if (releaseId !== null) await db.insert(releaseProducts).values({ productId, releaseId, trackId: null, kind: 'bundle' });
}

/** The release's products on sale: the album's and each track's, for the release page's Buy buttons. */
export async function saleProducts(db: Db, releaseId: number): Promise<{ productId: string; trackId: number | null }[]> {
  return db
    .select({ productId: releaseProducts.productId, trackId: releaseProducts.trackId })
    .from(releaseProducts)
    .where(and(eq(releaseProducts.releaseId, releaseId), eq(releaseProducts.kind, 'sale')));
}

/** Step "grant downloads" of an order's transaction: what its products sell or carry; true when anything was granted. */
export async function grantForOrder(tx: Tx, order: { userId: string; orderId: string; productIds: string[] }): Promise<boolean> {
  if (order.productIds.length === 0) return false;
  const links = await tx
    .select()
    .from(releaseProducts)
    .where(inArray(releaseProducts.productId, [...new Set(order.productIds)]));
  for (const link of links) {
    await grantOwnership(tx, {
      userId: order.userId,
      releaseId: link.releaseId,
      trackId: link.trackId,
      source: link.kind === 'bundle' ? 'bundle' : 'purchase',
      sourceRef: order.orderId,
    });
  }
  return links.length > 0;
}

/**
 * Step "revoke downloads" of a refund's transaction (issue 28, decision 061): what a refunded
 * order granted is taken back. `all` (the order is refunded in full): every grant whose source is
 * this order, whatever its products link to now; otherwise the grants of these refunded products'
 * releases and tracks. A code's grant, or another order's, is never touched. Deleting is its own
 * "once": a second call finds nothing. Returns how many grants were taken back. A signed link
 * already issued stops working, since a download checks ownership again.
 */
export async function revokeForOrder(tx: Tx, order: { userId: string; orderId: string; productIds: string[] | 'all' }): Promise<number> {
  const ofOrder = and(eq(digitalOwnership.userId, order.userId), eq(digitalOwnership.sourceRef, order.orderId), inArray(digitalOwnership.source, ['purchase', 'bundle']));
  if (order.productIds === 'all') return (await tx.delete(digitalOwnership).where(ofOrder).returning({ id: digitalOwnership.id })).length;
  if (order.productIds.length === 0) return 0;
  const links = await tx
    .select()
    .from(releaseProducts)
    .where(inArray(releaseProducts.productId, [...new Set(order.productIds)]));
  if (links.length === 0) return 0;
  const granted = or(
    ...links.map((link) =>
      and(
        eq(digitalOwnership.releaseId, link.releaseId),
        link.trackId === null ? isNull(digitalOwnership.trackId) : eq(digitalOwnership.trackId, link.trackId),
        eq(digitalOwnership.source, link.kind === 'bundle' ? 'bundle' : 'purchase'),
      ),
    ),
  );
  return (await tx.delete(digitalOwnership).where(and(ofOrder, granted)).returning({ id: digitalOwnership.id })).length;
}

/** The products that sell (`sale`) or carry (`bundle`) these releases, or these products' links: the roster credits them with a release (decision 070). */
export async function releaseProductLinks(
  db: Db,
  filter: { releaseIds?: number[]; productIds?: string[] },
): Promise<{ productId: string; releaseId: number; kind: 'sale' | 'bundle' }[]> {
  const condition = filter.releaseIds
    ? inArray(releaseProducts.releaseId, filter.releaseIds)
    : filter.productIds
      ? inArray(releaseProducts.productId, filter.productIds)
      : undefined;
  if (!condition || (filter.releaseIds ?? filter.productIds)!.length === 0) return [];
  return db.select({ productId: releaseProducts.productId, releaseId: releaseProducts.releaseId, kind: releaseProducts.kind }).from(releaseProducts).where(condition);
}

/**
 * What a cart of these products must not hold (issue 39 item 7): a track beside its own album,
 * and a release or track the buyer already owns (owning the album owns its tracks). Only what
 * the shop sells as downloads counts: a physical product that carries a release is merch.
 */
export async function digitalConflicts(
  db: Db | Tx,
  userId: string,
  productIds: string[],
): Promise<{ albumWithTrack: { albumProductId: string; trackProductId: string }[]; owned: string[] }> {
  const none = { albumWithTrack: [], owned: [] };
  if (productIds.length === 0) return none;
  const links = await db
    .select()
    .from(releaseProducts)
    .where(and(inArray(releaseProducts.productId, [...new Set(productIds)]), eq(releaseProducts.kind, 'sale')));
  if (links.length === 0) return none;
  const albumOf = new Map(links.filter((link) => link.trackId === null).map((link) => [link.releaseId, link.productId]));
  const albumWithTrack = links.flatMap((link) =>
    link.trackId !== null && albumOf.has(link.releaseId) ? [{ albumProductId: albumOf.get(link.releaseId)!, trackProductId: link.productId }] : [],
  );
  const rows = await db
    .select({ releaseId: digitalOwnership.releaseId, trackId: digitalOwnership.trackId })
    .from(digitalOwnership)
    .where(and(eq(digitalOwnership.userId, userId), inArray(digitalOwnership.releaseId, [...new Set(links.map((link) => link.releaseId))])));
  const owned = links
    .filter((link) => rows.some((row) => row.releaseId === link.releaseId && (row.trackId === null || row.trackId === link.trackId)))
    .map((link) => link.productId);
  return { albumWithTrack, owned };
}
