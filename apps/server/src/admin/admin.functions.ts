import { z } from 'zod';
import { listAuditInput, salesOverviewInput, setAdminInput } from '@storefront/domain/console.ts';
import { defineFunction } from '../functions/registry.ts';
import { listAdmins, setAdmin } from './admins.service.ts';
import { listAudit } from './audit.service.ts';
import { salesOverview } from './sales.service.ts';

/** The console's activity list and admin management (decision 031). */
export const adminFunctions = [
  defineFunction({
    name: 'listAdminActivity',
    access: 'admin',
    input: listAuditInput,
    handler: async (page, { db }) => listAudit(db, { limit: page.limit ?? 25, after: page.after }),
  }),
  defineFunction({
    name: 'listAdmins',
    access: 'admin',
    input: z.null().or(z.object({}).strict()),
    handler: async (_input, { db, config }) => ({ admins: await listAdmins(db, config) }),
  }),
  defineFunction({
    name: 'setAdmin',
    access: 'admin',
    input: setAdminInput,
    handler: async (input, { db, config, caller }) => ({ changed: await setAdmin(db, config, input, { userId: caller!.userId }) }),
  }),
  defineFunction({
    name: 'getSalesOverview',
    access: 'admin',
    input: salesOverviewInput,
    handler: async ({ days }, { db }) => salesOverview(db, days ?? 30),
  }),
];
