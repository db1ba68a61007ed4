import { defineArea } from '../http/area.ts';
import { accountSettingsFunctions } from './account-settings.functions.ts';
import { accountsFunctions } from './accounts.functions.ts';
import { addressFunctions } from './addresses.functions.ts';
import { isAPIError } from 'better-auth/api';
import { PASSWORD_RESET_QUEUE, type Auth, type PasswordResetRequest } from './auth.ts';
import { authRoutes, type SessionResolver } from './auth.routes.ts';
import { firebaseAuthRoutes } from './firebase-auth.routes.ts';
import { endSingleSignOn } from '../oidc/logout.service.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { QueueMail } from '../mail/mail.jobs.ts';

/** What app.ts hands the accounts area. */
export interface AccountsOptions {
  auth: Auth;
  config: Config;
  db: Db;
  jobs: JobQueue;
  queueMail: QueueMail;
  resolveSession: SessionResolver;
}

/** Sign-up, sign-in, sessions (Better Auth under /api/auth) and saved addresses. */
export const accountsArea = defineArea('accounts', async (app, { auth, config, db, jobs, queueMail, resolveSession }: AccountsOptions) => {
  await app.register(authRoutes, { auth, config, db, queueMail });
  // A reset request answered at once is carried out here (decision 043): Better Auth looks the
  // email up, stores the hashed token and queues the mail. A request it refuses is done with.
  await jobs.work<PasswordResetRequest>(PASSWORD_RESET_QUEUE, async (request) => {
    await auth.api.requestPasswordReset({ body: request }).catch((error: unknown) => {
      if (isAPIError(error) && error.statusCode < 500) return app.log.warn({ err: error }, 'a queued password-reset request was refused');
      throw error;
    });
  });
  // The Firebase Auth endpoints `firebase/auth` calls for signInWithCustomToken (decision 035).
  await app.register(firebaseAuthRoutes, { resolveSession, db });
  return { functions: [...accountsFunctions(auth, queueMail), ...accountSettingsFunctions(queueMail, (userId) => endSingleSignOn(db, jobs, userId)), ...addressFunctions] };
});
