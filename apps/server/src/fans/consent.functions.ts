import { publicUrl } from '../config.ts';
import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { rateLimitSubject } from '../http/client-address.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import type { Mail } from '../mail/mailer.ts';
import { newsConfirmMail } from '../mail/templates.ts';
import { signConsentLink } from './consent-links.ts';
import { consentOf, giveConsent, normaliseEmail, requestConsent, withdrawConsent } from './consent.service.ts';
import { leaveLink } from './list-unsubscribe.ts';

export interface ConsentDeps {
  queueMail: (mail: Mail) => Promise<void>;
  /** The account's address (accounts owns it; app.ts hands this over). */
  emailOf: (userId: string) => Promise<string>;
}

/** Marketing consent's functions (issue 37 part 2, decision 074). */
export function consentFunctions(deps: ConsentDeps): CallableFunction[] {
  return [
    defineFunction('subscribeToNews', async ({ email, page }, { db, config, ip }) => {
      // Per client address and per address asked for: nobody fills a stranger's inbox.
      await hitRateLimit(db, `news-ip:${rateLimitSubject(ip)}`, 10, 600);
      await hitRateLimit(db, `news-email:${normaliseEmail(email)}`, 3, 3600);
      if (await requestConsent(db, email, page)) {
        const origin = publicUrl(config);
        const secret = config.AUTH_SECRET;
        const confirmUrl = `${origin}/news/confirm?token=${encodeURIComponent(signConsentLink(secret, 'news-confirm', normaliseEmail(email)))}`;
        await deps.queueMail(newsConfirmMail(normaliseEmail(email), confirmUrl, leaveLink(origin, secret, normaliseEmail(email))));
      }
      return { ok: true as const };
    }),
    defineFunction('getMyConsent', async (_input, { db, caller }) => consentOf(db, await deps.emailOf(caller.userId))),
    defineFunction('setMyConsent', async ({ consented, page }, { db, caller }) => {
      await hitRateLimit(db, `news-account:${caller.userId}`, 30, 600);
      const email = await deps.emailOf(caller.userId);
      if (consented) await giveConsent(db, { email, userId: caller.userId, source: 'account', page });
      else await withdrawConsent(db, email, 'account');
      return consentOf(db, email);
    }),
  ];
}
