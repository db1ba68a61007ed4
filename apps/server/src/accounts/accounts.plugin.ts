import { defineArea } from '../http/area.ts';
import { accountsFunctions } from './accounts.functions.ts';
import { addressFunctions } from './addresses.functions.ts';
import { authRoutes } from './auth.routes.ts';

/** Sign-up, sign-in, sessions (Better Auth under /api/auth) and saved addresses. */
export const accountsArea = defineArea('accounts', async (app, { auth, config, db, queueMail }) => {
  await app.register(authRoutes, { auth, config, db });
  return { functions: [...accountsFunctions(auth, queueMail), ...addressFunctions] };
});
