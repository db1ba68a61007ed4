import { defineFunction } from '../functions/registry.ts';
import { listTimeline } from './content.service.ts';

export const contentFunctions = [
  defineFunction('listHistory', async (query, { db }) => ({ entries: await listTimeline(db, query) })),
];
