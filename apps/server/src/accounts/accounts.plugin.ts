import { defineArea } from '../http/area.ts';
import { accountSettingsFunctions } from './account-settings.functions.ts';
import { accountsFunctions } from './accounts.functions.ts';
import { addressFunctions } from './addresses.functions.ts';
import { authRoutes } from './auth.routes.ts';
import { firebaseAuthRoutes } from './firebase-auth.routes.ts';

/** Sign-up, sign-in, sessions (Better Auth under /api/auth) and saved addresses. */
export const accountsArea = defineArea('accounts', async (app, { auth, config, db, queueMail, resolveSession }) => {
  await app.register(authRoutes, { auth, config, db, queueMail });
  // The Firebase Auth endpoints `firebase/auth` calls for signInWithCustomToken (decision 035).
  await app.register(firebaseAuthRoutes, { resolveSession, db });
  return { functions: [...accountsFunctions(auth, queueMail), ...accountSettingsFunctions(queueMail), ...addressFunctions] };
});
