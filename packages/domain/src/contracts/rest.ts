import { z } from 'zod';
import { CATEGORY_ID, SHOP_PAGE_MAX, SHOP_SEARCH_MAX, type Product, type ShopPage } from '../catalog.ts';
import { productOutput } from './console.ts';

/**
 * The shop's public REST reads (issue 24 item 7, decision 048): what each GET answers, as
 * a zod schema beside the callable functions' contracts, so the OpenAPI document, the
 * server's tests and the web's types all read one definition. The server does not parse
 * its own answers at run time (the catalogue's are cached bytes, decision 013); its tests
 * parse them (openapi/openapi.test.ts).
 */
export interface ReadContract<Output extends z.ZodType = z.ZodType> {
  method: 'GET';
  /** The path in OpenAPI's form: `{slug}`, not Fastify's `:slug`. */
  path: string;
  summary: string;
  /** Path parameters by name, with their description. */
  params?: Record<string, string>;
  /** Query parameters (an object schema), when the read takes any. */
  query?: z.ZodObject;
  output: Output;
  /** The error statuses this read answers besides 429 and 500. */
  errors: readonly (400 | 404)[];
}

function defineRead<Output extends z.ZodType>(contract: ReadContract<Output>): ReadContract<Output> {
  return contract;
}

export const pageOutput = z.object({
  slug: z.string(),
  title: z.string(),
  /** The page's JSON body as the label wrote it in the console (decision 033). */
  body: z.unknown(),
  updatedAt: z.string(),
});

export const siteOutput = z.object({
  contactEmail: z.string(),
  /** Signup refuses these email domains, checked in this order. */
  blockedEmailDomains: z.array(z.string()),
});

export const shopPageOutput = z.object({
  products: z.array(productOutput),
  /** The `after` of the next page; null on the last one. */
  next: z.string().nullable(),
});

export const productPageOutput = z.object({ product: productOutput });

// The query as a client sends it (strings); the server's own parser is catalog-schemas.ts's
// shopQuery, whose transforms and messages a document need not repeat.
const shopQueryDocumented = z.object({
  q: z.string().max(SHOP_SEARCH_MAX).optional().describe('Searches names and descriptions.'),
  category: z
    .union([z.literal(''), z.string().regex(CATEGORY_ID)])
    .optional()
    .describe('One category by its id (the console manages them); empty for all.'),
  after: z.string().min(1).max(400).optional().describe('The previous page’s `next`.'),
  limit: z
    .string()
    .regex(/^[0-9]+$/)
    .optional()
    .describe(`Page size, 1 to ${SHOP_PAGE_MAX}.`),
});

export const readContracts = {
  readPage: defineRead({
    method: 'GET',
    path: '/api/pages/{slug}',
    summary: 'A content page (home, about, privacy-policy, contact) as the label wrote it.',
    params: { slug: 'The page’s name: lowercase letters, digits and dashes.' },
    output: pageOutput,
    errors: [400, 404],
  }),
  readSite: defineRead({
    method: 'GET',
    path: '/api/site',
    summary: 'The shop’s public settings: the contact address and the email domains signup refuses.',
    output: siteOutput,
    errors: [],
  }),
  readProducts: defineRead({
    method: 'GET',
    path: '/api/products',
    summary: 'The shop, a page at a time, in shop order (ETag; 304 when unchanged).',
    query: shopQueryDocumented,
    output: shopPageOutput,
    errors: [400],
  }),
  readProduct: defineRead({
    method: 'GET',
    path: '/api/products/{id}',
    summary: 'One product; a withdrawn one only for admins (everyone else gets 404).',
    params: { id: 'The product’s id.' },
    output: productPageOutput,
    errors: [404],
  }),
};

export type ReadContracts = typeof readContracts;
export type ReadName = keyof ReadContracts;
/** What a REST read answers. */
export type ReadOutput<N extends ReadName> = z.output<ReadContracts[N]['output']>;

// catalog.ts's Product and ShopPage stay hand-written (the shop's pages must not load zod,
// decision 016), so the compiler holds them to these contracts both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const productTypesAgree: Same<z.output<typeof productOutput>, Product> & Same<z.output<typeof shopPageOutput>, ShopPage> = true;
