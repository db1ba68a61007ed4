import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { defineArea } from '../http/area.ts';
import { type Config, shopOrigin } from '../config.ts';
import { addContentPages } from './content.pages.ts';
import { contentFunctions } from './content.functions.ts';
import { contentRoutes } from './content.routes.ts';
import type { Db } from '../db/client.ts';
import type { PublicPages } from '../web/public-pages.ts';

/** What app.ts hands the content area. */
export interface ContentOptions {
  config: Config;
  db: Db;
  pages: PublicPages;
}

/** The label's pages and the cover images under content/covers. */
export const contentArea = defineArea('content', async (app, { config, db, pages }: ContentOptions) => {
  await app.register(contentRoutes, { db, config });
  addContentPages(pages, { db, config, origin: shopOrigin(config) });
  await app.register(fastifyStatic, {
    root: path.join(config.contentDir, 'covers'),
    prefix: '/content/covers/',
    decorateReply: false,
    maxAge: '7d',
  });
  return { functions: contentFunctions };
});
