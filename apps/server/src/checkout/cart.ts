import { bundleStock, expandDemand, type BundlePart } from '@storefront/domain/bundles.ts';
import type { CartItems } from '@storefront/domain/pricing-schemas.ts';
import { CHECKOUT_MESSAGES, MAX_ORDER_TOTAL_CENTS, namedUnitCents, quote } from '@storefront/domain/pricing.ts';
import type { TaxParts } from '@storefront/domain/shipping-tax.ts';
import { cartLineId, lineName, lineRanOutMessage, overLimitMessage, resolveVariant } from '@storefront/domain/variants.ts';
import type { PricedVariant } from '../catalog/variants.service.ts';
import { sortedDemand, type ShortLine, type StockDemand } from '../catalog/variants.service.ts';
import type { CheckoutLine } from './checkouts.service.ts';
import { AppError } from '../errors.ts';
import type { OrderLine } from '../orders/orders.service.ts';

/**
 * The cart as checkout sees it (pure: no database): the buyer's items at the database's
 * prices, what they take from counted variants, and the sentences that name a line that
 * ran out or went past its per-customer limit.
 */

/** A priced cart line and whether its variant's stock is counted. */
export type StockLine = OrderLine & { variantId: string; counted: boolean; digital?: boolean; weightGrams?: number; giftCard?: boolean; components?: BundlePart[] };

/** The cart's lines at these prices; unknown or inactive items (and variants) are named and refused, and lines past what is left. */
export function cartLines(items: CartItems, priced: PricedVariant[]): StockLine[] {
  const byProduct = new Map<string, (PricedVariant & { productId: string })[]>();
  for (const row of priced) byProduct.set(row.id, [...(byProduct.get(row.id) ?? []), { ...row, id: row.variantId, productId: row.id }]);
  const resolved = items.map((item) => ({ item, variant: resolveVariant(byProduct.get(item.id) ?? [], item.id, item.variantId) }));
  const missing = resolved.filter(({ variant }) => !variant).map(({ item }) => cartLineId(item.id, item.variantId));
  if (missing.length > 0) {
    throw new AppError('failed-precondition', `Some items in your cart are no longer available (${missing.join(', ')}). Remove them to continue.`, { unavailable: missing });
  }
  // "Name your price" (issue 28): the buyer's amount, at least the item's price, or refused by name.
  const named = resolved.map(({ item, variant }) => namedUnitCents(item, { ...variant!, name: lineName(variant!.name, variant!.optionValues) }));
  const refused = named.flatMap((price) => ('refused' in price ? [price.refused] : []));
  if (refused.length > 0) throw new AppError('invalid-argument', refused.join(' '));
  const lines = resolved.map(({ item, variant }, index) => {
    const parts = variant!.components;
    return {
      id: item.id,
      variantId: variant!.variantId,
      name: lineName(variant!.name, variant!.optionValues),
      qty: item.qty,
      unitCents: (named[index] as { unitCents: number }).unitCents,
      // A bundle (issue 27, decision 055): no stock of its own; counted when a part is.
      counted: parts ? parts.some((part) => part.counted) : variant!.stock !== null,
      stock: parts ? bundleStock(parts) : variant!.stock,
      ...(variant!.digital ? { digital: true } : {}),
      // Weight-based rates (decision 060) weigh each unit; a variant not weighed counts 0 g.
      ...(variant!.weightGrams ? { weightGrams: variant!.weightGrams } : {}),
      // A preorder (decision 054): paid now, shipped on its street date; stock applies as to any line.
      ...(variant!.releaseDate ? { shipsOn: variant!.releaseDate } : {}),
      ...(variant!.giftCard ? { giftCard: true } : {}),
      ...(parts ? { components: parts.map(({ stock: _stock, ...part }) => part), partStock: parts } : {}),
    };
  });
  // A bundle without parts (never expected) is not sold.
  const empty = lines.filter((line) => line.components?.length === 0).map(lineIdOf);
  if (empty.length > 0)
    throw new AppError('failed-precondition', `Some items in your cart are no longer available (${empty.join(', ')}). Remove them to continue.`, { unavailable: empty });
  // Lines drawing on the same variant are summed (a cart cannot oversell itself), a bundle's parts with the rest.
  const demand = expandDemand(lines);
  const stockOf = new Map<string, number>();
  for (const line of lines) {
    if (line.partStock) for (const part of line.partStock) if (part.stock !== null) stockOf.set(part.variantId, part.stock);
    if (!line.components && line.stock !== null) stockOf.set(line.variantId, line.stock);
  }
  const shortVariants = new Set([...demand].filter(([variantId, qty]) => qty > (stockOf.get(variantId) ?? Infinity)).map(([variantId]) => variantId));
  // A bundle line is also short when it alone wants more than its parts allow (a withdrawn part allows none).
  const short = lines.filter((line) =>
    line.components ? line.components.some((part) => shortVariants.has(part.variantId)) || (line.stock !== null && line.qty > line.stock) : shortVariants.has(line.variantId),
  );
  if (short.length > 0) throw outOfStock(short.map((line) => ({ lineId: lineIdOf(line), name: line.name, left: Math.max(0, line.stock ?? 0) })));
  if (quote(lines, 0, false).totalCents > MAX_ORDER_TOTAL_CENTS) throw new AppError('invalid-argument', CHECKOUT_MESSAGES.orderTooLarge);
  return lines.map(({ stock: _stock, partStock: _partStock, ...line }) => line);
}

const lineIdOf = (line: { id: string; variantId: string }) => cartLineId(line.id, line.variantId === line.id ? undefined : line.variantId);

/** "Only 2 of "Logo Tee - L" are left…": the lines that ran out, named, with what is left of each. */
export function outOfStock(lines: { lineId: string; name: string; left: number }[]): AppError {
  return new AppError('failed-precondition', [...new Set(lines.map((line) => lineRanOutMessage(line.name, line.left)))].join(' '), {
    outOfStock: lines.map(({ lineId, left }) => ({ lineId, left })),
  });
}

/** A stock update found less than the cart wants (another buyer was first): the line, named. */
export function ranOut(lines: StockLine[], short: ShortLine[]): AppError {
  return outOfStock(
    short.map(({ variantId, left }) => {
      // The line that takes the variant: its own, or a bundle's part (issue 27).
      const line = lines.find((candidate) => candidate.variantId === variantId) ?? lines.find((candidate) => candidate.components?.some((part) => part.variantId === variantId))!;
      const part = line.components?.find((candidate) => candidate.variantId === variantId);
      return { lineId: lineIdOf(line), name: line.name, left: part ? Math.floor(left / part.qty) : left };
    }),
  );
}

/**
 * The units of each variant a cart takes, counted or not, a bundle line's parts included: a
 * per-customer limit counts a variant however it is bought (issue 40 item 6). Each with the
 * line that takes it and the name a refusal gives it.
 */
export function unitsByVariant(lines: StockLine[]): Map<string, { qty: number; name: string; lineId: string }> {
  const units = new Map<string, { qty: number; name: string; lineId: string }>();
  const add = (variantId: string, qty: number, name: string, line: StockLine) => {
    const known = units.get(variantId);
    units.set(variantId, known ? { ...known, qty: known.qty + qty } : { qty, name, lineId: lineIdOf(line) });
  };
  for (const line of lines) {
    if (line.components && line.components.length > 0) for (const part of line.components) add(part.variantId, part.qty * line.qty, part.name, line);
    else add(line.variantId, line.qty, line.name, line);
  }
  return units;
}

/** The variants past their per-customer limit, given what the buyer already has of each (bought or held, alone or in a bundle). */
export function overLimit(lines: StockLine[], limits: Map<string, number>, already: Map<string, number>): AppError | undefined {
  const over = [...unitsByVariant(lines)].filter(([variantId, { qty }]) => limits.has(variantId) && (already.get(variantId) ?? 0) + qty > limits.get(variantId)!);
  if (over.length === 0) return undefined;
  const messages = over.map(([variantId, { name }]) => overLimitMessage(name, limits.get(variantId)!, already.get(variantId) ?? 0));
  return new AppError('failed-precondition', messages.join(' '), {
    overLimit: over.map(([variantId, { lineId }]) => ({ lineId, limit: limits.get(variantId)!, already: already.get(variantId) ?? 0 })),
  });
}

/** What a cart takes from counted variants (a bundle's counted parts for a bundle line), in lock order. */
export function demandOf(lines: { variantId?: string; qty: number; counted?: boolean; components?: BundlePart[] }[]): StockDemand {
  return sortedDemand(expandDemand(lines.filter((line) => line.counted)));
}

/** What a checkout set aside (its lines marked as held), in lock order. */
export function heldDemand(items: CheckoutLine[]): StockDemand {
  return demandOf(items.map((item) => ({ ...item, counted: item.stockHeld === true })));
}

/** The checkout's stored lines: a counted line's stock is held with the checkout. */
export function checkoutLines(lines: StockLine[]): CheckoutLine[] {
  return lines.map(({ counted, ...line }): CheckoutLine => (counted ? { ...line, stockHeld: true } : line));
}

/** Lines with the order's tax basis (decision 060), kept so a refund gives back what each line really paid. */
export function withTaxParts<T extends { qty: number }>(lines: T[], parts: TaxParts): (T & { paidCents?: number; taxCents?: number })[] {
  return lines.map((line, index) => {
    const part = parts.lines[index];
    return part ? { ...line, paidCents: part.paidCents, taxCents: part.taxCents } : line;
  });
}

/** The order's lines (without the stock flag; a digital line says so, issue 28; a bundle line keeps its parts, decision 055). */
export function orderLines(lines: StockLine[]): OrderLine[] {
  return lines.map(({ counted: _counted, digital, weightGrams: _weightGrams, giftCard: _giftCard, components, ...line }) => ({
    ...line,
    ...(digital ? { digital: true } : {}),
    ...(components ? { components: components.map(({ counted: _c, ...part }) => part) } : {}),
  }));
}
