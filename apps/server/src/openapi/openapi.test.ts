import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineContract, noInput, okOutput } from '@storefront/domain/contracts/define.ts';
import { functionContracts } from '@storefront/domain/contracts/index.ts';
import { readContracts } from '@storefront/domain/contracts/rest.ts';
import { API_VERSION, buildOpenApiDocument, jsonSchemaOf, type OpenApiDocument } from '@storefront/domain/openapi.ts';
import { startTestApp, type TestApp } from '../../test/app.ts';
import { createAccount } from '../accounts/accounts.service.ts';
import { releaseProduct } from '../catalog/catalog.service.ts';
import { contentSeeder } from '../seed/seed.ts';

/**
 * Issue 24 item 7, decision 048: the OpenAPI document is the zod contracts, the reference
 * page is the document, and the REST reads answer what their contracts say.
 */
/** The parts of an operation these tests read. */
interface Schemas {
  operationId: string;
  'x-access': string;
  deprecated?: boolean;
  requestBody: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { content: Record<string, { schema: unknown }> }>;
}
interface ErrorSchema {
  properties: { error: { required: string[]; properties: { status: { enum: string[] } } } };
}

let shop: TestApp;
let base: string;
let served: OpenApiDocument;
let activeId: string;
let withdrawnId: string;
let adminToken: string;

beforeAll(async () => {
  shop = await startTestApp({
    config: { env: { SIGNUP_RATE_LIMIT: '1000' } },
    async seed({ db, config }) {
      await contentSeeder.run(db, { config, log: () => undefined });
      const form = { email: 'docs-admin@example.org', username: 'DocsAdmin', name: 'Docs Admin', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true };
      await createAccount(db, config, form, { emailVerified: true, role: 'admin', allowReservedUsername: true });
      activeId = await releaseProduct(db, { name: 'Docs Tee', description: 'A tee', priceCents: 2500, images: ['/content/covers/cover-01.svg'] });
      withdrawnId = await releaseProduct(db, { name: 'Docs Zine', description: 'A zine', priceCents: 900, images: ['/content/covers/cover-01.svg'] });
    },
  });
  base = shop.baseUrl;
  adminToken = await shop.signIn('docs-admin@example.org', 'pass words');
  await shop.functions(() => adminToken).call('setProductActive', { id: withdrawnId, isActive: false });
  const response = await fetch(`${base}/api/openapi.json`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('access-control-allow-origin')).toBe('*');
  served = (await response.json()) as OpenApiDocument;
});

afterAll(async () => {
  await shop?.close();
});

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(served);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(served.openapi).toMatch(/^3\.1\./);
    expect(served.info.version).toBe(API_VERSION);
    expect(served.servers).toEqual([{ url: new URL(base).origin }]);
  });

  it('has every function the server registers as POST /fn/<name>, with its contract’s JSON schemas and access, and nothing else', () => {
    const registered = shop.app.callableFunctions;
    const documented = Object.keys(served.paths).filter((path) => path.startsWith('/fn/'));
    expect(documented.sort()).toEqual(registered.map((fn) => `/fn/${fn.name}`).sort());
    for (const { name, access } of registered) {
      const contract = functionContracts[name as keyof typeof functionContracts];
      const operation = served.paths[`/fn/${name}`]!.post as unknown as Schemas;
      expect(Object.keys(served.paths[`/fn/${name}`]!)).toEqual(['post']);
      expect(operation.operationId).toBe(name);
      expect(operation['x-access']).toBe(access);
      expect(operation.requestBody.content['application/json']?.schema).toEqual({
        type: 'object',
        required: ['data'],
        properties: { data: jsonSchemaOf(contract.input, 'input') },
      });
      expect(operation.responses['200']?.content['application/json']?.schema).toEqual({
        type: 'object',
        required: ['data'],
        properties: { data: jsonSchemaOf(contract.output, 'output') },
      });
      // The error answers a caller of this access level can get.
      expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['400', '404', '429', '500']));
      expect('401' in operation.responses).toBe(access !== 'public');
      expect('403' in operation.responses).toBe(access === 'admin');
      expect(operation.deprecated).toBeUndefined();
    }
  });

  it('has the four REST reads with their contracts’ answers', () => {
    const reads = Object.entries(served.paths).filter(([path]) => !path.startsWith('/fn/'));
    expect(reads.map(([path]) => path).sort()).toEqual(['/api/pages/{slug}', '/api/products', '/api/products/{id}', '/api/site']);
    for (const [name, contract] of Object.entries(readContracts)) {
      const operation = served.paths[contract.path]!.get as unknown as Schemas;
      expect(operation.operationId).toBe(name);
      expect(operation.responses['200']?.content['application/json']?.schema).toEqual(jsonSchemaOf(contract.output, 'output'));
    }
    // Each route of the document is a route the server has (Fastify's `:param` form).
    const routes = new Set(shop.app.httpRoutes.map((route) => `${route.method} ${route.url}`));
    for (const contract of Object.values(readContracts)) expect(routes).toContain(`GET ${contract.path.replace(/\{(\w+)\}/g, ':$1')}`);
  });

  it('describes the error body as the server sends it, request id included', async () => {
    const errorSchema = (served.components as { schemas: { Error: ErrorSchema } }).schemas.Error;
    expect(errorSchema.properties.error.required).toEqual(['status', 'message', 'requestId']);
    const answers = [
      await fetch(`${base}/fn/noSuchFunction`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":null}' }),
      await fetch(`${base}/fn/getProfile`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"data":null}' }),
      await fetch(`${base}/api/products/${'x'.repeat(100)}`),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([404, 401, 404]);
    for (const answer of answers) {
      const body = (await answer.json()) as { error: { status: string; message: string; requestId: string } };
      expect(errorSchema.properties.error.properties.status.enum).toContain(body.error.status);
      expect(typeof body.error.message).toBe('string');
      expect(body.error.requestId).toBe(answer.headers.get('x-request-id'));
    }
  });

  it('marks a deprecated function deprecated: true, with when it goes and what replaces it', () => {
    const document = buildOpenApiDocument({
      functions: {
        oldCall: defineContract({
          access: 'signed-in',
          input: noInput,
          output: okOutput,
          deprecated: { since: '1.1.0', on: '2026-12-01', removeAfter: '2027-06-01', instead: 'Call newCall.' },
        }),
        newCall: defineContract({ access: 'signed-in', input: z.object({ n: z.number() }), output: okOutput }),
      },
      reads: {},
      version: '1.1.0',
    });
    const old = document.paths['/fn/oldCall']!.post!;
    expect(old.deprecated).toBe(true);
    expect(old['x-deprecation']).toEqual({ since: '1.1.0', on: '2026-12-01', removeAfter: '2027-06-01', instead: 'Call newCall.' });
    expect(old.description).toContain('2027-06-01');
    expect(document.paths['/fn/newCall']!.post!.deprecated).toBeUndefined();
    expect(document.info.version).toBe('1.1.0');
  });
});

describe('the REST reads answer what their contracts say', () => {
  it('GET /api/site', async () => {
    const response = await fetch(`${base}/api/site`);
    expect(response.status).toBe(200);
    readContracts.readSite.output.strict().parse(await response.json());
  });

  it('GET /api/pages/:slug, for every seeded page', async () => {
    for (const slug of ['home', 'about', 'privacy-policy']) {
      const response = await fetch(`${base}/api/pages/${slug}`);
      expect(response.status).toBe(200);
      expect(readContracts.readPage.output.strict().parse(await response.json()).slug).toBe(slug);
    }
    // The contact page's address is in /api/site until the console saves the page.
    expect((await fetch(`${base}/api/pages/contact`)).status).toBe(404);
  });

  it('GET /api/products: the cached first page, a category page and a search', async () => {
    for (const query of ['', '?category=merch', '?q=docs&limit=1']) {
      const response = await fetch(`${base}/api/products${query}`);
      expect(response.status).toBe(200);
      const page = readContracts.readProducts.output.strict().parse(await response.json());
      expect(page.products.map((product) => product.id)).toContain(activeId);
    }
  });

  it('GET /api/products/:id: an active product from the cache, a withdrawn one for an admin', async () => {
    const active = readContracts.readProduct.output.strict().parse(await (await fetch(`${base}/api/products/${activeId}`)).json());
    expect(active.product.isActive).toBe(true);
    const withdrawn = await fetch(`${base}/api/products/${withdrawnId}`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(withdrawn.status).toBe(200);
    expect(readContracts.readProduct.output.strict().parse(await withdrawn.json()).product.isActive).toBe(false);
    expect((await fetch(`${base}/api/products/${withdrawnId}`)).status).toBe(404);
  });
});

describe('GET /api/docs', () => {
  it('lists every operation of the document, works under the shop’s CSP, and loads nothing from elsewhere', async () => {
    const response = await fetch(`${base}/api/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await response.text();
    for (const [path, methods] of Object.entries(served.paths)) {
      for (const operation of Object.values(methods)) {
        expect(html).toContain(`id="${operation.operationId}"`);
        expect(html).toContain(`<code>${path}</code>`);
      }
    }
    expect(html).toContain(`version ${API_VERSION}`);
    expect(html).toContain('href="/api/openapi.json"');
    expect(html).not.toMatch(/<script|src="https?:|href="https?:/);
  });
});
