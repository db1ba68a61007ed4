import { sendVerificationEmailFn } from 'better-auth/api';
import { defineFunction } from '../functions/registry.ts';
import { rateLimitSubject } from '../http/client-address.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import type { Mail } from '../mail/mailer.ts';
import { accountExistsMail } from '../mail/templates.ts';
import { type Auth } from './auth.ts';
import { publicUrl } from '../config.ts';
import { createAccount, getOwnProfile, recordDeviceToken } from './accounts.service.ts';
import { giveConsent } from '../fans/consent.service.ts';

/**
 * What a new account's signup costs after the password hash (its transaction and
 * verification mail), as a moving average in this process. A signup with a registered
 * email does the same hash and queues a mail too, then waits out the difference, so the
 * answer's timing tells nothing (decision 018).
 */
function afterHashCost() {
  let average: number | undefined;
  return {
    record(hashedAt: number) {
      const ms = performance.now() - hashedAt;
      average = average === undefined ? ms : average * 0.8 + ms * 0.2;
    },
    async padFrom(hashedAt: number) {
      const wait = Math.min((average ?? 0) - (performance.now() - hashedAt), 2_000);
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    },
  };
}

export function accountsFunctions(auth: Auth, enqueueMail: (mail: Mail) => Promise<void>) {
  const newAccount = afterHashCost();
  return [
    defineFunction('createAccount', async (form, { db, config, ip }) => {
      await hitRateLimit(db, `signup:${rateLimitSubject(ip)}`, config.SIGNUP_RATE_LIMIT, 600);
      const account = await createAccount(db, config, form);
      // A mail either way, so both answers cost the same: a verification link for a new
      // account, a "someone tried to sign up with your email" note for an existing one.
      if (account.created) {
        // The library's own link and mail, without its /send-verification-email endpoint
        // (whose 500 ms floor would make a new signup the slow, telling one).
        const context = await auth.$context;
        const now = new Date();
        await sendVerificationEmailFn({ context, body: { callbackURL: '/login?verified=1' } } as unknown as Parameters<typeof sendVerificationEmailFn>[0], {
          id: account.userId,
          email: account.email,
          name: account.name,
          emailVerified: false,
          createdAt: now,
          updatedAt: now,
        });
        newAccount.record(account.hashedAt);
        // The signup's own, unticked "Send me news" box (decision 074), apart from the terms.
        if (form.marketingConsent) await giveConsent(db, { email: account.email, userId: account.userId, source: 'signup', page: '/signup' });
      } else {
        await enqueueMail(accountExistsMail(account.email, account.name, `${publicUrl(config)}/login`));
        await newAccount.padFrom(account.hashedAt);
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
