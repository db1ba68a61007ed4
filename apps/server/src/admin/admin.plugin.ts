import { defineArea } from '../http/area.ts';
import { adminFunctions } from './admin.functions.ts';

/** The admin console: admins, the audit log and sales figures. */
export const adminArea = defineArea('admin', async () => ({ functions: adminFunctions }));
