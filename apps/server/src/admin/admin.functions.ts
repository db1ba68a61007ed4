import { defineFunction } from '../functions/registry.ts';
import { listAdmins, setAdmin } from './admins.service.ts';
import { listAudit } from '../audit/audit.service.ts';
import { salesOverview } from './sales.service.ts';

/** The console's activity list and admin management (decision 031). */
export const adminFunctions = [
  defineFunction('listAdminActivity', async (page, { db }) => listAudit(db, page)),
  defineFunction('listAdmins', async (_input, { db, config }) => ({ admins: await listAdmins(db, config) })),
  defineFunction('setAdmin', async (input, { db, config, caller }) => ({ changed: await setAdmin(db, config, input, { userId: caller.userId }) })),
  defineFunction('getSalesOverview', async (period, { db, config }) => salesOverview(db, config.LABEL_TIME_ZONE, period)),
];
