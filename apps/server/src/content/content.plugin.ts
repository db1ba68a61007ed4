import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { defineArea } from '../http/area.ts';
import { shopOrigin } from '../web/web-app.ts';
import { addContentPages } from './content.pages.ts';
import { contentFunctions } from './content.functions.ts';
import { contentRoutes } from './content.routes.ts';

/** The label's pages and the cover images under content/covers. */
export const contentArea = defineArea('content', async (app, { config, db, pages }) => {
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
