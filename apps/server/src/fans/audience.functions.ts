import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { audienceSummary } from './audience.service.ts';

/** The console's Audience tab (issue 37 part 6, decision 078): admins only. */
export function audienceFunctions(): CallableFunction[] {
  return [defineFunction('getAudience', async (_input, { db }) => audienceSummary(db))];
}
