import { z } from 'zod';
import type { Access, FunctionContract } from './contracts/define.ts';
import type { ReadContract } from './contracts/rest.ts';
import { FUNCTION_ERROR_CODES, httpStatusForCode, statusNameForCode } from './errors.ts';

/**
 * The OpenAPI 3.1 document of the shop's public interface (issue 24 item 7, decision 048),
 * generated from the zod contracts with zod's own `z.toJSONSchema`: every callable
 * function as `POST /fn/<name>`, the REST reads, and the error answers. Pure: the server
 * serves it (openapi/openapi.plugin.ts) and tests compare it with the contracts.
 */

/**
 * The version of the public interface (semver, decision 048): minor for an addition (a new
 * function, a new optional input field, a new output field), major for anything a client
 * written against the previous version could trip on, which ships only after the old form
 * was deprecated for the notice period.
 */
export const API_VERSION = '2.3.0';

export type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
};
export interface OpenApiOperation {
  operationId: string;
  summary?: string;
  deprecated?: boolean;
  'x-access': Access | 'public';
  [key: string]: unknown;
}

/** One zod schema as JSON Schema (draft 2020-12, OpenAPI 3.1's dialect), as a client sends (input) or receives (output) it. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, target: 'draft-2020-12' }) as JsonSchema;
  // A `$ref` inside would point into this document's root, not the schema's: recursive
  // schemas need components of their own first.
  if (JSON.stringify(rest).includes('"$ref"')) throw new Error('A contract with a recursive schema cannot be inlined into the OpenAPI document.');
  return rest;
}

const ERROR_STATUS_NAMES = FUNCTION_ERROR_CODES.filter((code) => code !== 'ok').map(statusNameForCode);

/** The error body every route answers with (the spec's section 8; the request id of decision 040). */
const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['status', 'message', 'requestId'],
      properties: {
        status: { type: 'string', enum: ERROR_STATUS_NAMES, description: 'The error code; its HTTP status follows the spec’s table.' },
        message: { type: 'string', description: 'A sentence for a person. The text of a 5xx is never sent.' },
        requestId: { type: 'string', description: 'Also the `X-Request-Id` header: quote it to the label.' },
        details: { description: 'Extra facts some errors carry (a field, a limit).' },
      },
    },
  },
};

/** Each HTTP status an error may come with, and the codes sent with it. */
function statusCodes(status: number): string[] {
  return FUNCTION_ERROR_CODES.filter((code) => code !== 'ok' && httpStatusForCode(code) === status).map(statusNameForCode);
}

const ERROR_RESPONSES: Record<number, string> = {
  400: 'The input or the request is not valid',
  401: 'Not signed in: no session cookie or bearer token, or one that expired or was revoked',
  403: 'Signed in, but not allowed (an admin function)',
  404: 'Not found (an unknown function name answers this too)',
  409: 'A conflict: retried with different data, or changed meanwhile',
  429: 'Too many requests: wait and retry',
  500: 'An internal error (no details leave the server)',
  503: 'The shop cannot serve this now (the database is unreachable, or the server is closing)',
};
/** Statuses no function answers today but the protocol allows (499, 501, 504: CANCELLED, UNIMPLEMENTED, DEADLINE_EXCEEDED). */
const OTHER_ERRORS = 'Any other error status the protocol allows (499 CANCELLED, 501 UNIMPLEMENTED, 504 DEADLINE_EXCEEDED): the same error body';

function errorResponse(status: number) {
  return { $ref: `#/components/responses/Error${status}` };
}

function functionErrors(access: Access): Record<string, unknown> {
  const statuses = [400, ...(access === 'public' ? [] : [401]), ...(access === 'admin' ? [403] : []), 404, 409, 429, 500, 503];
  return { ...Object.fromEntries(statuses.map((status) => [String(status), errorResponse(status)])), default: { $ref: '#/components/responses/ErrorOther' } };
}

const ACCESS_TEXT: Record<Access, string> = {
  public: 'Anyone may call it.',
  'signed-in': 'Signed-in callers only (session cookie or `Authorization: Bearer <token>`).',
  admin: 'The label’s admins only.',
};

function functionOperation(name: string, contract: FunctionContract): OpenApiOperation {
  const deprecation = contract.deprecated
    ? ` Deprecated since ${contract.deprecated.since}; may be removed after ${contract.deprecated.removeAfter}. ${contract.deprecated.instead}`
    : '';
  return {
    operationId: name,
    summary: `Callable function ${name}`,
    description: `${ACCESS_TEXT[contract.access]}${deprecation}`,
    tags: [contract.access === 'public' ? 'public functions' : contract.access === 'admin' ? 'admin functions' : 'signed-in functions'],
    ...(contract.deprecated ? { deprecated: true, 'x-deprecation': contract.deprecated } : {}),
    'x-access': contract.access,
    ...(contract.access === 'public' ? { security: [] } : {}),
    requestBody: {
      required: true,
      content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: jsonSchemaOf(contract.input, 'input') } } } },
    },
    responses: {
      '200': {
        description: 'The function’s answer',
        content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: jsonSchemaOf(contract.output, 'output') } } } },
      },
      ...functionErrors(contract.access),
    },
  };
}

function readOperation(name: string, contract: ReadContract): OpenApiOperation {
  const parameters = [
    ...Object.entries(contract.params ?? {}).map(([param, description]) => ({ name: param, in: 'path', required: true, description, schema: { type: 'string' } })),
    ...Object.entries(contract.query ? (jsonSchemaOf(contract.query, 'input').properties as Record<string, JsonSchema>) : {}).map(([param, schema]) => {
      const { description, ...rest } = schema;
      return { name: param, in: 'query', required: false, ...(description ? { description } : {}), schema: rest };
    }),
  ];
  const statuses = [...contract.errors, 429, 500, 503];
  return {
    operationId: name,
    summary: contract.summary,
    tags: ['REST reads'],
    'x-access': 'public',
    security: [],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses: {
      '200': { description: 'The answer', content: { 'application/json': { schema: jsonSchemaOf(contract.output, 'output') } } },
      ...Object.fromEntries(statuses.map((status) => [String(status), errorResponse(status)])),
      default: { $ref: '#/components/responses/ErrorOther' },
    },
  };
}

export interface OpenApiOptions {
  functions: Record<string, FunctionContract>;
  reads: Record<string, ReadContract>;
  /** The shop's origin (PUBLIC_URL), when it is known. */
  serverUrl?: string;
  version?: string;
}

export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const paths: Record<string, Record<string, OpenApiOperation>> = {};
  for (const [name, contract] of Object.entries(options.reads)) {
    paths[contract.path] = { ...paths[contract.path], [contract.method.toLowerCase()]: readOperation(name, contract) };
  }
  for (const [name, contract] of Object.entries(options.functions).sort(([a], [b]) => a.localeCompare(b))) {
    paths[`/fn/${name}`] = { post: functionOperation(name, contract) };
  }
  const responses = Object.fromEntries(
    Object.entries(ERROR_RESPONSES).map(([status, description]) => [
      `Error${status}`,
      {
        description: `${description}. \`error.status\` is one of: ${statusCodes(Number(status)).join(', ') || 'UNAVAILABLE'}.`,
        headers: { 'X-Request-Id': { schema: { type: 'string' } } },
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
  responses.ErrorOther = {
    description: `${OTHER_ERRORS}.`,
    headers: { 'X-Request-Id': { schema: { type: 'string' } } },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  return {
    openapi: '3.1.1',
    info: {
      title: 'Storefront API',
      version: options.version ?? API_VERSION,
      description:
        'The shop’s callable functions (`POST /fn/<name>` with `{"data": <input>}`, answering `{"data": <output>}`) and public REST reads, generated from the shop’s zod contracts. ' +
        'Versioning and deprecation: see the README, "Using the shop from another app".',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    security: [{ session: [] }, { bearer: [] }],
    tags: [
      { name: 'REST reads', description: 'Public GET reads of the shop’s pages and catalogue.' },
      { name: 'public functions', description: ACCESS_TEXT.public },
      { name: 'signed-in functions', description: ACCESS_TEXT['signed-in'] },
      { name: 'admin functions', description: ACCESS_TEXT.admin },
    ],
    paths,
    components: {
      schemas: { Error: errorSchema },
      responses,
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'better-auth.session_token',
          description: 'The shop’s session cookie (named with a `__Secure-` prefix on https), from the same origin or a CORS_ORIGINS origin.',
        },
        bearer: { type: 'http', scheme: 'bearer', description: 'A bearer token from sign-in (or the Firebase SDK’s ID token).' },
      },
    },
  };
}
