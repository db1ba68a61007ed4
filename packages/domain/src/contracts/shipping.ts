import { z } from 'zod';
import { MAX_ORDER_TOTAL_CENTS } from '../pricing.ts';
import type { ShippingTaxConfig } from '../shipping-tax.ts';
import { defineContract, noInput } from './define.ts';

/**
 * Shipping zones, rates and tax as the console edits them (issue 26, decision 051): one
 * document, saved whole with the version it was read at, so two admins' edits never mix.
 */

const cents = z.number().int('Amounts are whole cents.').min(0, 'Amounts cannot be negative.').max(MAX_ORDER_TOTAL_CENTS);
const basisPoints = z.number().int('Rates are whole basis points (925 = 9.25%).').min(0, 'Rates cannot be negative.').max(10_000, 'A rate is at most 100%.');
/** "*", a country ("DE") or a US state ("US-CA"). */
export const regionSchema = z
  .string()
  .trim()
  .toUpperCase()
  .regex(/^(\*|[A-Z]{2}(-[A-Z0-9]{1,3})?)$/, 'A region is * or a two-letter country code, optionally with a state (US-CA).');
const id = z
  .string()
  .trim()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'An id is lowercase letters, digits and -, at most 40.');
const name = (what: string) => z.string().trim().min(1, `Please name the ${what}.`).max(60);

const methodSchema = z
  .object({
    id,
    name: name('method'),
    basis: z.enum(['order', 'item', 'weight']),
    firstCents: cents,
    extraCents: cents,
    stepGrams: z.number().int().min(1).max(1_000_000),
    /** Weight brackets, lightest first (decision 060). */
    brackets: z
      .array(z.object({ upToGrams: z.number().int().min(1, 'A weight bracket goes up to at least 1 gram.').max(1_000_000), cents }).strict())
      .max(20, 'A method has at most 20 weight brackets.')
      .refine(
        (brackets) => brackets.every((bracket, i) => i === 0 || bracket.upToGrams > brackets[i - 1]!.upToGrams),
        'Weight brackets go up: each one’s grams above the one before.',
      )
      .optional(),
  })
  .strict();

const zoneSchema = z
  .object({
    id,
    name: name('zone'),
    regions: z.array(regionSchema).min(1, 'A zone needs at least one region.').max(300),
    ships: z.boolean(),
    freeOverCents: cents.nullable(),
    methods: z.array(methodSchema).max(10),
  })
  .strict()
  .refine((zone) => new Set(zone.methods.map((method) => method.id)).size === zone.methods.length, 'A method id appears once in a zone.')
  .refine((zone) => !zone.ships || zone.methods.length > 0, 'A zone that ships needs at least one method.');

const taxRuleSchema = z
  .object({
    region: regionSchema,
    name: z.string().trim().max(60),
    physicalBasisPoints: basisPoints,
    digitalBasisPoints: basisPoints,
    shippingTaxable: z.boolean(),
    pricesIncludeTax: z.boolean(),
  })
  .strict();

export const shippingTaxConfigSchema = z
  .object({
    zones: z.array(zoneSchema).max(50),
    taxRules: z.array(taxRuleSchema).max(200),
    taxProvider: z.enum(['builtin', 'stripe']),
  })
  .strict()
  .refine((config) => new Set(config.zones.map((zone) => zone.id)).size === config.zones.length, 'A zone id appears once.')
  .refine((config) => {
    const regions = config.zones.flatMap((zone) => zone.regions);
    return new Set(regions).size === regions.length;
  }, 'A region belongs to one zone only.')
  .refine((config) => new Set(config.taxRules.map((rule) => rule.region)).size === config.taxRules.length, 'A region has one tax rule only.');

// The schema and the domain's type describe the same document.
const _sameShape: z.infer<typeof shippingTaxConfigSchema> extends ShippingTaxConfig ? true : never = true;
void _sameShape;

const configOutput = z.object({ config: shippingTaxConfigSchema, version: z.number().int() });

export const shippingContracts = {
  /** The console's Shipping & tax tab reads and saves the whole document. */
  getShippingTaxConfig: defineContract({ access: 'admin', input: noInput, output: configOutput }),
  saveShippingTaxConfig: defineContract({
    access: 'admin',
    input: z.object({ config: shippingTaxConfigSchema, version: z.number().int().min(0) }).strict(),
    output: configOutput,
  }),
};
