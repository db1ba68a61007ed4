import { centsToDecimal } from './money.ts';

/**
 * Merch options, variants and stock (issue 15, decision 027): pure rules and messages
 * shared by the server and the shop's pages. A product without options has one default
 * variant whose id is the product's id; a cart line without a variant means that one.
 */
export const MAX_OPTIONS = 3;
export const MAX_OPTION_VALUES = 20;
export const MAX_VARIANTS = 100;
/** "Only N left" is shown at this many or fewer. */
export const LOW_STOCK_THRESHOLD = 5;
export const MAX_STOCK = 1_000_000;

export interface ProductOption {
  name: string;
  values: string[];
}

/** A variant as every client reads it: its effective price, and stock null when unlimited. */
export interface Variant {
  id: string;
  options: string[];
  sku: string;
  priceCents: number;
  stock: number | null;
  /** "Limit N per customer" (decision 044); null or absent: no limit. */
  perCustomerLimit?: number | null;
  /** Weight of one unit in grams, for weight-based shipping (decision 060); null or absent: not weighed. */
  weightGrams?: number | null;
  /** The variant's own street date (decision 054); absent or null: the product's. */
  releaseDate?: string | null | undefined;
}

/** The heaviest unit a variant may weigh: 100 kg. */
export const MAX_WEIGHT_GRAMS = 100_000;

export const STOCK_MESSAGES = {
  soldOut: 'Sold out',
  chooseOption: 'Please choose an option.',
  variantSoldOut: 'This option is sold out.',
  optionName: 'Please name each option.',
  optionValues: 'Each option needs at least one value.',
  duplicateValue: 'The values of an option must differ.',
  tooManyOptions: `At most ${MAX_OPTIONS} options.`,
  tooManyVariants: `At most ${MAX_VARIANTS} variants.`,
  variantsMismatch: 'The variants must be exactly the combinations of the options.',
  stock: 'Please enter a stock count of 0 or more, or leave it empty for unlimited.',
  lateRefundSubject: 'Your payment was refunded',
  perCustomerLimit: 'Please enter a limit per customer from 1 to 1000, or leave it empty for no limit.',
  weight: 'Please enter a weight in whole grams from 0 to 100000, or leave it empty.',
} as const;

export function onlyLeftMessage(left: number): string {
  return `Only ${left} left`;
}

/** Shown when Add to Cart would take more than is left. */
export function noMoreMessage(left: number): string {
  return left === 0 ? 'This item is sold out.' : `Only ${left} left: your cart already holds all of them.`;
}

/** One cart line that asks for more than is left: the sentence the cart and checkout show. */
export function lineRanOutMessage(name: string, left: number): string {
  return left === 0
    ? `"${name}" is sold out. Remove it from your cart to continue.`
    : `Only ${left} of "${name}" ${left === 1 ? 'is' : 'are'} left. Reduce the quantity to continue.`;
}

/** "Limit 2 per customer": shown on the product page beside the size. */
export function perCustomerLimitNote(limit: number): string {
  return `Limit ${limit} per customer`;
}

/** A cart line past the variant's per-customer limit (counted across the buyer's orders and open checkout). */
export function overLimitMessage(name: string, limit: number, already: number): string {
  const left = Math.max(0, limit - already);
  return left === 0
    ? `"${name}" is limited to ${limit} per customer and you already have ${already}. Remove it from your cart to continue.`
    : `"${name}" is limited to ${limit} per customer: you can buy ${left} more. Reduce the quantity to continue.`;
}

/** "L / Black"; empty for the default variant. */
export function variantLabel(values: readonly string[]): string {
  return values.join(' / ');
}

/** "Logo Tee - L / Black", or the product's name alone for the default variant. */
export function lineName(productName: string, values: readonly string[]): string {
  return values.length > 0 ? `${productName} - ${variantLabel(values)}` : productName;
}

/** Every combination of the options' values, in option order (the first option varies slowest). */
export function combinations(options: readonly ProductOption[]): string[][] {
  return options.reduce<string[][]>((acc, option) => acc.flatMap((prefix) => option.values.map((value) => [...prefix, value])), [[]]);
}

export const sameValues = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((value, i) => value === b[i]);

/** The first problem with a set of options, or undefined. */
export function optionsProblem(options: readonly ProductOption[]): string | undefined {
  if (options.length > MAX_OPTIONS) return STOCK_MESSAGES.tooManyOptions;
  for (const option of options) {
    if (!option.name.trim()) return STOCK_MESSAGES.optionName;
    if (option.values.length === 0 || option.values.some((value) => !value.trim())) return STOCK_MESSAGES.optionValues;
    if (new Set(option.values.map((value) => value.trim())).size !== option.values.length) return STOCK_MESSAGES.duplicateValue;
  }
  if (options.reduce((n, option) => n * option.values.length, 1) > MAX_VARIANTS) return STOCK_MESSAGES.tooManyVariants;
  return undefined;
}

export const isSoldOut = (variant: Pick<Variant, 'stock'>) => variant.stock !== null && variant.stock <= 0;

/** The shop grid's "Sold out": nothing left in any variant. */
export function productSoldOut(variants: readonly Pick<Variant, 'stock'>[]): boolean {
  return variants.length > 0 && variants.every(isSoldOut);
}

/** "Only N left" at LOW_STOCK_THRESHOLD or fewer, else undefined (also when sold out or unlimited). */
export function lowStockNote(stock: number | null): string | undefined {
  return stock !== null && stock > 0 && stock <= LOW_STOCK_THRESHOLD ? onlyLeftMessage(stock) : undefined;
}

/** How many more of a variant may be added when the cart already holds `inCart`. */
export function addableQty(stock: number | null, inCart: number, wanted: number): number {
  const room = stock === null ? wanted : Math.max(0, stock - inCart);
  return Math.max(0, Math.min(wanted, room));
}

/**
 * The variant a cart line means: its own, or the product's default variant (id = the
 * product's id), as in carts saved before variants. A product with options has no default.
 */
export function resolveVariant<T extends { id: string }>(variants: readonly T[], productId: string, variantId: string | undefined): T | undefined {
  return variants.find((variant) => variant.id === (variantId ?? productId));
}

/** A cart line's key: the variant's id (the product's id for the default variant, as before issue 15). */
export const cartLineId = (productId: string, variantId: string | undefined) => variantId ?? productId;

/** The quantities a cart takes from each variant: lines on the same variant summed (issue 15). */
export function demandByVariant(lines: readonly { variantId: string; qty: number }[]): Map<string, number> {
  const demand = new Map<string, number>();
  for (const line of lines) demand.set(line.variantId, (demand.get(line.variantId) ?? 0) + line.qty);
  return demand;
}

// ---- The admin's options and variants form (issue 15) -----------------------------------

/** One option as typed: a name and its values separated by commas ("S, M, L"). */
export interface OptionForm {
  name: string;
  values: string;
}

/** One variant row as typed: price empty = the product's price, stock empty = unlimited. */
export interface VariantForm {
  sku: string;
  price: string;
  stock: string;
  /** The stock shown when the form opened (edit): unchanged, the server keeps the live count. */
  loadedStock?: string;
  /** "Limit N per customer" (decision 044): empty for no limit. */
  limit?: string;
  /** Grams of one unit (decision 060): empty when not weighed. */
  weight?: string;
  /** The variant's own street date, YYYY-MM-DD (decision 054): empty for the product's. */
  releaseDate?: string;
}

export const VARIANT_FORM_MESSAGES = {
  price: 'Please enter a valid price for each variant, or leave it empty for the product’s price.',
  stock: STOCK_MESSAGES.stock,
  sku: 'A SKU must be at most 64 characters.',
  limit: STOCK_MESSAGES.perCustomerLimit,
  weight: STOCK_MESSAGES.weight,
  releaseDate: 'Enter each variant’s release date as YYYY-MM-DD, or leave it empty for the product’s.',
} as const;

/** "S, M ,L" -> ["S", "M", "L"]; empty parts dropped. */
export function parseOptionValues(text: string): string[] {
  return text
    .split(',')
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
}

/** The options an admin typed; rows left wholly empty are ignored. */
export function optionsFromForm(forms: readonly OptionForm[]): ProductOption[] {
  return forms.filter((form) => form.name.trim() || form.values.trim()).map((form) => ({ name: form.name.trim(), values: parseOptionValues(form.values) }));
}

/** The key of a variant row: its option values. */
export const variantKey = (values: readonly string[]) => JSON.stringify(values);

/** What the release and edit functions take for the variants (domain catalog-schemas' variantInputSchema). */
export interface VariantRequest {
  options: string[];
  sku: string;
  priceCents: number | null;
  stock: number | null;
  keepStock?: boolean;
  perCustomerLimit?: number | null;
  weightGrams?: number | null;
  releaseDate?: string | null;
}

/** A real YYYY-MM-DD day (kept here so this module imports nothing). */
function isDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const parsed = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === text;
}

function parseStock(text: string): number | null | undefined {
  const trimmed = text.trim();
  if (!trimmed) return null;
  if (!/^\d+$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return n <= MAX_STOCK ? n : undefined;
}

/**
 * The options and one variant per combination, from the form, or the first problem (the
 * server checks the same with zod). `parsePrice` is catalog's usdToCents, passed in to keep
 * this module free of imports.
 */
export function variantsFromForm(
  optionForms: readonly OptionForm[],
  rows: Readonly<Record<string, VariantForm>>,
  parsePrice: (text: string) => number | undefined,
  maxPriceCents: number,
): { options: ProductOption[]; variants: VariantRequest[] } | { problem: string } {
  const options = optionsFromForm(optionForms);
  const problem = optionsProblem(options);
  if (problem) return { problem };
  const variants: VariantRequest[] = [];
  for (const values of combinations(options)) {
    const row = rows[variantKey(values)] ?? { sku: '', price: '', stock: '' };
    if (row.sku.trim().length > 64) return { problem: VARIANT_FORM_MESSAGES.sku };
    let priceCents: number | null = null;
    if (row.price.trim()) {
      const cents = parsePrice(row.price);
      if (cents === undefined || cents <= 0 || cents > maxPriceCents) return { problem: VARIANT_FORM_MESSAGES.price };
      priceCents = cents;
    }
    const stock = parseStock(row.stock);
    if (stock === undefined) return { problem: VARIANT_FORM_MESSAGES.stock };
    const keep = row.loadedStock !== undefined && row.loadedStock.trim() === row.stock.trim();
    const limitText = (row.limit ?? '').trim();
    const perCustomerLimit = limitText ? Number(limitText) : null;
    if (perCustomerLimit !== null && (!/^\d+$/.test(limitText) || perCustomerLimit < 1 || perCustomerLimit > 1000)) return { problem: VARIANT_FORM_MESSAGES.limit };
    const weightText = (row.weight ?? '').trim();
    const weightGrams = weightText ? Number(weightText) : null;
    if (weightGrams !== null && (!/^\d+$/.test(weightText) || weightGrams > MAX_WEIGHT_GRAMS)) return { problem: VARIANT_FORM_MESSAGES.weight };
    const releaseDate = (row.releaseDate ?? '').trim() || null;
    if (releaseDate !== null && !isDay(releaseDate)) return { problem: VARIANT_FORM_MESSAGES.releaseDate };
    // Sent only once the row has a date field (typed, or loaded by an edit), so clearing it sends null.
    variants.push({
      options: values,
      sku: row.sku.trim(),
      priceCents,
      stock,
      perCustomerLimit,
      weightGrams,
      ...(row.releaseDate !== undefined ? { releaseDate } : {}),
      ...(keep ? { keepStock: true } : {}),
    });
  }
  return { options, variants };
}

/** The form's rows for a product being edited (or empty for a new one). */
export function variantFormRows(product: { priceCents: number; variants: readonly Variant[] } | null): Record<string, VariantForm> {
  const rows: Record<string, VariantForm> = {};
  for (const variant of product?.variants ?? []) {
    const stock = variant.stock === null ? '' : String(variant.stock);
    rows[variantKey(variant.options)] = {
      sku: variant.sku,
      // The read model has the effective price: an override shows only where it differs.
      price: variant.priceCents === product!.priceCents ? '' : centsToDecimal(variant.priceCents),
      stock,
      loadedStock: stock,
      limit: variant.perCustomerLimit ? String(variant.perCustomerLimit) : '',
      weight: variant.weightGrams === null || variant.weightGrams === undefined ? '' : String(variant.weightGrams),
      ...(variant.releaseDate ? { releaseDate: variant.releaseDate } : {}),
    };
  }
  return rows;
}
