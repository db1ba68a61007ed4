import { listQuerySchema } from '@storefront/domain/field-path.ts';
import { defineFunction } from '../functions/registry.ts';
import { listTimeline } from './content.service.ts';

export const contentFunctions = [
  defineFunction({
    name: 'listHistory',
    access: 'public',
    input: listQuerySchema,
    handler: async (query, { db }) => ({ entries: await listTimeline(db, query) }),
  }),
];
