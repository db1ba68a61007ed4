import { defineFunction } from '../functions/registry.ts';
import { rateLimitSubject } from '../http/client-address.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import type { Auth } from './auth.ts';
import { createAccount, getOwnProfile, recordDeviceToken } from './accounts.service.ts';

export function accountsFunctions(auth: Auth) {
  return [
    defineFunction('createAccount', async (form, { db, config, ip }) => {
      await hitRateLimit(db, `signup:${rateLimitSubject(ip)}`, config.SIGNUP_RATE_LIMIT, 600);
      const account = await createAccount(db, config, form);
      if (account.created) {
        await auth.api.sendVerificationEmail({ body: { email: account.email, callbackURL: '/login?verified=1' } });
      }
      // The same answer whether or not the email already had an account.
      return { ok: true, email: account.email };
    }),
    defineFunction('getProfile', async (_input, { db, config, caller }) => getOwnProfile(db, config, caller.userId)),
    defineFunction('recordDeviceToken', async ({ deviceToken }, { db, caller }) => {
      await recordDeviceToken(db, caller.userId, deviceToken);
      return { ok: true };
    }),
  ];
}
