import { functionContracts } from '@storefront/domain/contracts/index.ts';
import { readContracts } from '@storefront/domain/contracts/rest.ts';
import { buildOpenApiDocument } from '@storefront/domain/openapi.ts';
import { defineArea } from '../http/area.ts';
import { openapiRoutes } from './openapi.routes.ts';
import type { Config } from '../config.ts';

/** What app.ts hands the openapi area. */
export interface OpenapiOptions {
  config: Config;
}

/**
 * The published contract (issue 24 item 7, decision 048): the OpenAPI document at
 * `/api/openapi.json` and its reference page at `/api/docs`, both made once at start-up
 * from the zod contracts the server itself checks calls with.
 */
export const openapiArea = defineArea('openapi', async (app, { config }: OpenapiOptions) => {
  const document = buildOpenApiDocument({
    functions: functionContracts,
    reads: readContracts,
    ...(config.PUBLIC_URL ? { serverUrl: new URL(config.PUBLIC_URL).origin } : {}),
  });
  await app.register(openapiRoutes, { document });
});
