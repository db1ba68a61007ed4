/**
 * Bundles (issue 27, decision 055): a product made of other products' variants, priced once.
 * A bundle's own variants are the combinations of the components the buyer picks a variant of
 * (an LP and a tee in a size: one option "Logo Tee" with the tee's sizes). Each bundle variant
 * names the component variants it takes; it has no stock of its own: what is left of it is
 * what its components allow. Pure rules shared by the server and the pages.
 */
import { MAX_OPTIONS, MAX_VARIANTS, variantLabel, type ProductOption } from './variants.ts';

export const MAX_BUNDLE_COMPONENTS = 10;
export const MAX_COMPONENT_QTY = 20;

/** One component of a bundle line: the variant it takes, `qty` per bundle. */
export interface BundlePart {
  productId: string;
  variantId: string;
  /** "Logo Tee - M", as the packing list reads it. */
  name: string;
  qty: number;
  /** The component's stock is counted (a checkout line: its units were set aside with it). */
  counted?: boolean;
}

export const BUNDLE_MESSAGES = {
  noComponents: 'A bundle needs at least two components (or one taken twice or more).',
  tooManyComponents: `At most ${MAX_BUNDLE_COMPONENTS} components.`,
  tooManyPicks: `The buyer can pick a variant of at most ${MAX_OPTIONS} components.`,
  tooManyVariants: `At most ${MAX_VARIANTS} combinations of the picked components.`,
  componentQty: `Each component's quantity must be from 1 to ${MAX_COMPONENT_QTY}.`,
  componentNotFound: 'A component of this bundle no longer exists. Please choose again.',
  componentIsBundle: 'A bundle cannot be a component of another bundle.',
  componentIsDigital: 'A digital release cannot be a component of a bundle.',
  componentIsItself: 'A bundle cannot be its own component.',
  componentLimited: 'A variant with a per-customer limit cannot be in a bundle.',
  variantOfOtherProduct: 'That variant belongs to another product.',
  duplicatePick: 'A component the buyer picks can be listed only once.',
  notABundle: 'This product is not a bundle.',
  bundleHasOrdersInFlight: 'This bundle has unpaid checkouts. Please try again once they are paid or expired.',
  componentInBundle: 'This variant is a component of a bundle. Remove it from the bundle first.',
  includes: 'Includes',
} as const;

/** A component as the console chooses it: a fixed variant, or `variantId` null when the buyer picks one. */
export interface ComponentChoice {
  productId: string;
  variantId: string | null;
  qty: number;
}

/** A component product as the rules need it: its name and variants (option values, id). */
export interface ComponentProduct {
  id: string;
  name: string;
  variants: { id: string; options: string[] }[];
}

/** A bundle variant to be: its option values (one per picked component) and the parts it takes. */
export interface PlannedBundleVariant {
  options: string[];
  parts: BundlePart[];
}

const partName = (product: ComponentProduct, options: string[]) => (options.length > 0 ? `${product.name} - ${variantLabel(options)}` : product.name);

/**
 * The bundle's options and variants from the chosen components: one option per picked
 * component (named by the product, its values the variants' labels), every combination a
 * variant taking the fixed components and the picked ones. Throws the first problem's message.
 */
export function planBundle(
  choices: readonly ComponentChoice[],
  productsById: ReadonlyMap<string, ComponentProduct>,
): { options: ProductOption[]; variants: PlannedBundleVariant[] } {
  if (choices.length === 0 || (choices.length === 1 && choices[0]!.qty < 2)) throw new Error(BUNDLE_MESSAGES.noComponents);
  if (choices.length > MAX_BUNDLE_COMPONENTS) throw new Error(BUNDLE_MESSAGES.tooManyComponents);
  if (choices.some((choice) => !Number.isInteger(choice.qty) || choice.qty < 1 || choice.qty > MAX_COMPONENT_QTY)) throw new Error(BUNDLE_MESSAGES.componentQty);
  const picked = choices.filter((choice) => choice.variantId === null);
  if (picked.length > MAX_OPTIONS) throw new Error(BUNDLE_MESSAGES.tooManyPicks);
  if (new Set(picked.map((choice) => choice.productId)).size !== picked.length) throw new Error(BUNDLE_MESSAGES.duplicatePick);
  const productOf = (choice: ComponentChoice) => {
    const product = productsById.get(choice.productId);
    if (!product || product.variants.length === 0) throw new Error(BUNDLE_MESSAGES.componentNotFound);
    return product;
  };
  const fixed: BundlePart[] = [];
  const options: ProductOption[] = [];
  const pickedParts: BundlePart[][] = [];
  for (const choice of choices) {
    const product = productOf(choice);
    // A product with one variant leaves nothing to pick (issue 39): a fixed part, not a picker with one option.
    const variantId = choice.variantId ?? (product.variants.length === 1 ? product.variants[0]!.id : null);
    if (variantId !== null) {
      const variant = product.variants.find((candidate) => candidate.id === variantId);
      if (!variant) throw new Error(BUNDLE_MESSAGES.variantOfOtherProduct);
      fixed.push({ productId: product.id, variantId: variant.id, name: partName(product, variant.options), qty: choice.qty });
      continue;
    }
    const labels = product.variants.map((variant) => variantLabel(variant.options) || product.name);
    options.push({ name: product.name, values: labels });
    pickedParts.push(product.variants.map((variant) => ({ productId: product.id, variantId: variant.id, name: partName(product, variant.options), qty: choice.qty })));
  }
  if (pickedParts.reduce((n, parts) => n * parts.length, 1) > MAX_VARIANTS) throw new Error(BUNDLE_MESSAGES.tooManyVariants);
  // Every combination of the picked components' variants, the first picked component varying slowest.
  const combos = pickedParts.reduce<number[][]>((acc, parts) => acc.flatMap((prefix) => parts.map((_, i) => [...prefix, i])), [[]]);
  const variants = combos.map((combo) => ({
    options: combo.map((index, k) => options[k]!.values[index]!),
    parts: [...fixed, ...combo.map((index, k) => pickedParts[k]![index]!)],
  }));
  return { options, variants };
}

/** How many of a bundle variant can still be bought: the fewest its counted components allow (null: every part unlimited). */
export function bundleStock(parts: readonly { qty: number; stock: number | null }[]): number | null {
  let left: number | null = null;
  for (const part of parts) {
    if (part.stock === null) continue;
    const allows = Math.floor(Math.max(0, part.stock) / part.qty);
    left = left === null ? allows : Math.min(left, allows);
  }
  return left;
}

/**
 * The units a set of lines takes from each counted variant: a bundle line takes `qty` of
 * each of its counted parts per bundle, any other counted line its own variant. Lines on the
 * same variant (a bundle's tee and a tee bought alone) are summed: a cart cannot oversell itself.
 */
export function expandDemand(
  lines: readonly { variantId?: string | undefined; qty: number; counted?: boolean | undefined; components?: readonly BundlePart[] | undefined }[],
): Map<string, number> {
  const demand = new Map<string, number>();
  const add = (variantId: string, qty: number) => demand.set(variantId, (demand.get(variantId) ?? 0) + qty);
  for (const line of lines) {
    if (line.components && line.components.length > 0) {
      for (const part of line.components) if (part.counted) add(part.variantId, part.qty * line.qty);
    } else if (line.counted && line.variantId) add(line.variantId, line.qty);
  }
  return demand;
}

/** "Includes: Debut LP, 2 × Logo Tee - M": what a bundle line holds, for receipts, the desk and the CSV. */
export function partsText(parts: readonly Pick<BundlePart, 'name' | 'qty'>[]): string {
  return parts.map((part) => (part.qty > 1 ? `${part.qty} × ${part.name}` : part.name)).join(', ');
}
