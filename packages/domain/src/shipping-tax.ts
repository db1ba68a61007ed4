/**
 * Shipping zones and rates, and the built-in tax table (issue 26, decision 051). Pure functions
 * in integer cents; pricing.ts's `quote` calls them, so it stays the one place a total is made.
 *
 * A region is a country code ("DE"), a US state ("US-CA") or "*" (everywhere else). The most
 * specific region that matches a destination wins: "US-CA" before "US" before "*".
 * The default configuration is the spec's: one zone everywhere, Standard at a flat 999 cents an
 * order, 9.25% on subtotal + shipping, prices without tax; it quotes exactly as before.
 */

export const SHIPPING_TAX_MESSAGES = {
  /** A country with no zone, or a zone that does not ship: said before any payment. */
  noShipping: 'Sorry, we do not ship to this country yet. Please choose another shipping address.',
  chooseMethod: 'Please choose a shipping method.',
  addressNeeded: 'Please enter your shipping address to see shipping and tax.',
  /** The quote the buyer reviewed is no longer what the server prices (rates or address changed). */
  shippingChanged: 'Shipping or tax for your address changed since you reviewed this order. Please review the new total and try again.',
} as const;

export type RateBasis = 'order' | 'item' | 'weight';

export interface ShippingMethod {
  /** Stable id the checkout sends back ("standard", "express"). */
  id: string;
  name: string;
  /**
   * order: firstCents per order. item: firstCents for the first unit + extraCents for each
   * further unit (Bandcamp's base + per-extra-item). weight: firstCents for the first stepGrams
   * (or part of it) + extraCents for each further started step.
   */
  basis: RateBasis;
  firstCents: number;
  extraCents: number;
  stepGrams: number;
  /**
   * Weight brackets (decision 060), lightest first: an order up to `upToGrams` costs `cents` (the
   * first bracket it fits). Heavier than the last: the last bracket's price + extraCents for each
   * further started stepGrams. Absent or empty: firstCents for the first step, as above.
   */
  brackets?: WeightBracket[];
}

export interface WeightBracket {
  upToGrams: number;
  cents: number;
}

export interface ShippingZone {
  id: string;
  name: string;
  /** Countries ("DE"), US states ("US-CA") or "*". */
  regions: string[];
  /** False: the shop does not ship there; the checkout says so before payment. */
  ships: boolean;
  /** Shipping is free when the goods subtotal reaches this; null: never free. */
  freeOverCents: number | null;
  methods: ShippingMethod[];
}

export interface TaxRule {
  /** Country ("DE"), US state ("US-CA") or "*". */
  region: string;
  /** The jurisdiction the tax line names ("California", "Germany"); empty for the spec's default. */
  name: string;
  /** Rates in basis points (925 = 9.25%). */
  physicalBasisPoints: number;
  digitalBasisPoints: number;
  shippingTaxable: boolean;
  /** Prices (and shipping) already include this tax (EU/UK VAT): the tax is reported, not added. */
  pricesIncludeTax: boolean;
}

export type TaxProviderName = 'builtin' | 'stripe';

export interface ShippingTaxConfig {
  zones: ShippingZone[];
  taxRules: TaxRule[];
  /** Which provider calculates tax: the table below, or Stripe Tax (decision 051). */
  taxProvider: TaxProviderName;
}

export const DEFAULT_SHIPPING_TAX_CONFIG: ShippingTaxConfig = {
  zones: [
    {
      id: 'everywhere',
      name: 'Everywhere',
      regions: ['*'],
      ships: true,
      freeOverCents: null,
      methods: [{ id: 'standard', name: 'Standard', basis: 'order', firstCents: 999, extraCents: 0, stepGrams: 1000 }],
    },
  ],
  taxRules: [{ region: '*', name: '', physicalBasisPoints: 925, digitalBasisPoints: 925, shippingTaxable: true, pricesIncludeTax: false }],
  taxProvider: 'builtin',
};

export interface Destination {
  country: string;
  /** A US state code for US addresses; otherwise ignored for matching. */
  state?: string;
}

/** The regions a destination falls in, most specific first. */
export function regionsOf(destination: Destination | undefined): string[] {
  if (!destination) return ['*'];
  const country = destination.country.trim().toUpperCase();
  const state = (destination.state ?? '').trim().toUpperCase();
  return [...(state ? [`${country}-${state}`] : []), country, '*'];
}

/** The most specific item whose regions include one of the destination's. */
function mostSpecific<T>(items: T[], regionsOfItem: (item: T) => string[], destination: Destination | undefined): T | undefined {
  for (const region of regionsOf(destination)) {
    const found = items.find((item) => regionsOfItem(item).includes(region));
    if (found) return found;
  }
  return undefined;
}

export function zoneFor(config: Pick<ShippingTaxConfig, 'zones'>, destination: Destination | undefined): ShippingZone | undefined {
  return mostSpecific(config.zones, (zone) => zone.regions, destination);
}

export function taxRuleFor(config: Pick<ShippingTaxConfig, 'taxRules'>, destination: Destination | undefined): TaxRule | undefined {
  return mostSpecific(config.taxRules, (rule) => [rule.region], destination);
}

/** A line as shipping and tax see it: digital lines never ship; weight per unit (0 when unknown). */
export interface ShippableLine {
  unitCents: number;
  qty: number;
  digital?: boolean;
  weightGrams?: number;
}

/** Refusals of the pricing itself (no zone, no method): the server turns them into failed-precondition. */
export class PricingRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PricingRefusal';
  }
}

export interface ShippingChoice {
  zone: ShippingZone | null;
  method: ShippingMethod | null;
  shippingCents: number;
}

/** What the order's physical lines weigh (grams of a unit x units); digital lines and lines not weighed count 0. */
export function orderGrams(lines: ShippableLine[]): number {
  return lines.filter((line) => !line.digital).reduce((sum, line) => sum + Math.max(0, line.weightGrams ?? 0) * line.qty, 0);
}

/** The rate of one method for these lines, before any free-shipping threshold. */
export function methodCents(method: ShippingMethod, lines: ShippableLine[]): number {
  const physical = lines.filter((line) => !line.digital);
  if (physical.length === 0) return 0;
  if (method.basis === 'order') return method.firstCents;
  if (method.basis === 'item') {
    const units = physical.reduce((sum, line) => sum + line.qty, 0);
    return method.firstCents + method.extraCents * (units - 1);
  }
  const grams = orderGrams(lines);
  const step = Math.max(1, method.stepGrams);
  const brackets = method.brackets ?? [];
  if (brackets.length > 0) {
    const fits = brackets.find((bracket) => grams <= bracket.upToGrams);
    if (fits) return fits.cents;
    const last = brackets[brackets.length - 1]!;
    return last.cents + method.extraCents * Math.ceil((grams - last.upToGrams) / step);
  }
  const steps = Math.max(1, Math.ceil(grams / step));
  return method.firstCents + method.extraCents * (steps - 1);
}

/**
 * Shipping for a cart to a destination with a chosen method (the zone's first when none is
 * chosen). A cart of digital lines only ships nothing and needs no zone. Throws PricingRefusal
 * when the destination has no zone that ships or the method is not the zone's. `goodsCents`: the
 * goods after any discount (issue 27), which the free-shipping threshold compares; absent: the
 * lines' sum.
 */
export function shippingFor(
  config: Pick<ShippingTaxConfig, 'zones'>,
  lines: ShippableLine[],
  destination: Destination | undefined,
  methodId?: string,
  goodsCents?: number,
): ShippingChoice {
  const physical = lines.filter((line) => !line.digital);
  if (physical.length === 0) return { zone: null, method: null, shippingCents: 0 };
  const zone = zoneFor(config, destination);
  if (!zone) throw new PricingRefusal(destination ? SHIPPING_TAX_MESSAGES.noShipping : SHIPPING_TAX_MESSAGES.addressNeeded);
  if (!zone.ships || zone.methods.length === 0) throw new PricingRefusal(SHIPPING_TAX_MESSAGES.noShipping);
  const method = methodId ? zone.methods.find((candidate) => candidate.id === methodId) : zone.methods[0];
  if (!method) throw new PricingRefusal(SHIPPING_TAX_MESSAGES.chooseMethod);
  const subtotal = goodsCents ?? lines.reduce((sum, line) => sum + line.unitCents * line.qty, 0);
  const free = zone.freeOverCents !== null && subtotal >= zone.freeOverCents;
  return { zone, method, shippingCents: free ? 0 : methodCents(method, lines) };
}

/** Rounds a non-negative ratio n/d to the nearest whole number, halves up. */
export function roundHalfUp(numerator: number, denominator: number): number {
  return Math.floor((2 * numerator + denominator) / (2 * denominator));
}

export interface TaxResult {
  /** Tax added on top of the prices (0 where prices include tax). */
  taxCents: number;
  /** Tax already inside the prices (VAT-inclusive regions); never added to the total. */
  taxIncludedCents: number;
  /** The tax line's jurisdiction ("California"); empty for the default rule or no rule. */
  jurisdiction: string;
  /** Per line and for the shipping, from a provider that reports them (Stripe Tax's line items). */
  parts?: TaxParts;
}

/**
 * An order's tax basis (decision 060), kept with the order so a refund of some lines or the
 * shipping gives back the tax the order really paid on them, at its own rate: per cart line, what
 * the whole line paid for its goods (after any discount) and the tax added on top of it (0 where
 * prices include tax: the gross price already holds it); and the tax added on the shipping.
 */
export interface TaxParts {
  lines: { paidCents: number; taxCents: number }[];
  shippingTaxCents: number;
}

/**
 * The built-in table's parts: each line and the shipping taxed at the rule's rate, each rounded
 * half up on its own (as refunds always rounded a part's tax; the order's tax line is rounded once
 * over the sum, so the parts may differ from it by a cent or two). `goods`: the lines after any
 * discount, one per cart line.
 */
export function tableTaxParts(rule: TaxRule | undefined, goods: ShippableLine[], shippingCents: number): TaxParts {
  const onTop = rule !== undefined && !rule.pricesIncludeTax;
  const lines = goods.map((line) => {
    const paidCents = line.unitCents * line.qty;
    const bp = line.digital ? (rule?.digitalBasisPoints ?? 0) : (rule?.physicalBasisPoints ?? 0);
    return { paidCents, taxCents: onTop ? roundHalfUp(paidCents * bp, 10_000) : 0 };
  });
  const shippingTaxCents = onTop && rule.shippingTaxable ? roundHalfUp(shippingCents * rule.physicalBasisPoints, 10_000) : 0;
  return { lines, shippingTaxCents };
}

/**
 * An outside provider's tax without parts, shared over the lines and the shipping in proportion
 * to their amounts (largest remainder: the shares sum to the tax exactly).
 */
export function sharedTaxParts(taxCents: number, goods: ShippableLine[], shippingCents: number): TaxParts {
  const bases = [...goods.map((line) => line.unitCents * line.qty), shippingCents];
  const total = bases.reduce((sum, base) => sum + base, 0);
  const shares = bases.map((base) => (total === 0 ? 0 : Math.floor((base * taxCents) / total)));
  let left = taxCents - shares.reduce((sum, share) => sum + share, 0);
  const order = bases.map((base, index) => ({ index, remainder: total === 0 ? 0 : (base * taxCents) % total })).sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of order) {
    if (left <= 0) break;
    shares[index] = shares[index]! + 1;
    left -= 1;
  }
  return { lines: goods.map((line, index) => ({ paidCents: line.unitCents * line.qty, taxCents: shares[index]! })), shippingTaxCents: shares[bases.length - 1]! };
}

/**
 * Built-in table tax. Rounding (decision 051): tax added on top is rounded once, half up, over
 * the exact sum of base x rate of its parts (physical goods, digital goods, shipping if
 * taxable), so the default (9.25% of subtotal + shipping) is rounded exactly as the spec says.
 * Included tax is base x rate / (1 + rate), rounded half up per rate.
 */
export function tableTax(rule: TaxRule | undefined, lines: ShippableLine[], shippingCents: number): TaxResult {
  if (!rule) return { taxCents: 0, taxIncludedCents: 0, jurisdiction: '' };
  const physicalBase = lines.filter((line) => !line.digital).reduce((sum, line) => sum + line.unitCents * line.qty, 0) + (rule.shippingTaxable ? shippingCents : 0);
  const digitalBase = lines.filter((line) => line.digital).reduce((sum, line) => sum + line.unitCents * line.qty, 0);
  if (rule.pricesIncludeTax) {
    const part = (base: number, bp: number) => (bp > 0 ? roundHalfUp(base * bp, 10_000 + bp) : 0);
    return { taxCents: 0, taxIncludedCents: part(physicalBase, rule.physicalBasisPoints) + part(digitalBase, rule.digitalBasisPoints), jurisdiction: rule.name };
  }
  const numerator = physicalBase * rule.physicalBasisPoints + digitalBase * rule.digitalBasisPoints;
  return { taxCents: roundHalfUp(numerator, 10_000), taxIncludedCents: 0, jurisdiction: rule.name };
}

const US_STATES: Record<string, string> = {
  AL: 'Alabama',
  AK: 'Alaska',
  AZ: 'Arizona',
  AR: 'Arkansas',
  CA: 'California',
  CO: 'Colorado',
  CT: 'Connecticut',
  DE: 'Delaware',
  DC: 'District of Columbia',
  FL: 'Florida',
  GA: 'Georgia',
  HI: 'Hawaii',
  ID: 'Idaho',
  IL: 'Illinois',
  IN: 'Indiana',
  IA: 'Iowa',
  KS: 'Kansas',
  KY: 'Kentucky',
  LA: 'Louisiana',
  ME: 'Maine',
  MD: 'Maryland',
  MA: 'Massachusetts',
  MI: 'Michigan',
  MN: 'Minnesota',
  MS: 'Mississippi',
  MO: 'Missouri',
  MT: 'Montana',
  NE: 'Nebraska',
  NV: 'Nevada',
  NH: 'New Hampshire',
  NJ: 'New Jersey',
  NM: 'New Mexico',
  NY: 'New York',
  NC: 'North Carolina',
  ND: 'North Dakota',
  OH: 'Ohio',
  OK: 'Oklahoma',
  OR: 'Oregon',
  PA: 'Pennsylvania',
  RI: 'Rhode Island',
  SC: 'South Carolina',
  SD: 'South Dakota',
  TN: 'Tennessee',
  TX: 'Texas',
  UT: 'Utah',
  VT: 'Vermont',
  VA: 'Virginia',
  WA: 'Washington',
  WV: 'West Virginia',
  WI: 'Wisconsin',
  WY: 'Wyoming',
  PR: 'Puerto Rico',
};

/** The tax types a name is suffixed with (Stripe's tax_type): "Germany VAT", "Australia GST". */
const TAX_TYPE_WORDS: Record<string, string> = { vat: 'VAT', gst: 'GST', hst: 'HST', pst: 'PST', qst: 'QST', jct: 'JCT', igst: 'IGST', rst: 'RST' };

/**
 * A person-readable jurisdiction (decision 060) from a provider's codes: a US state by its name
 * ("California"), a country by its English name with its tax type where that is how people call
 * it ("Germany VAT", "Australia GST"). An unknown code is kept as it is.
 */
export function jurisdictionName(country: string, state?: string | null, taxType?: string | null): string {
  const code = country.trim().toUpperCase();
  const region = (state ?? '').trim().toUpperCase();
  if (code === 'US' && region && US_STATES[region]) return US_STATES[region];
  let name = code;
  try {
    const known = /^[A-Z]{2}$/.test(code) ? new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' }).of(code) : undefined;
    name = known && known !== 'Unknown Region' ? known : code;
  } catch {
    // Not a region code Intl knows: shown as given.
  }
  const word = TAX_TYPE_WORDS[(taxType ?? '').toLowerCase()];
  return word ? `${name} ${word}` : name;
}

/** "Tax", or "Tax (California)", or "VAT included (Germany)": the tax line's label everywhere. */
export function taxLineLabel(jurisdiction: string | null | undefined, included = false): string {
  const base = included ? 'Tax included' : 'Tax';
  return jurisdiction ? `${base} (${jurisdiction})` : base;
}
