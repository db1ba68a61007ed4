import type { Config } from '../config.ts';
import { publicUrl } from '../config.ts';
import { AppError } from '../errors.ts';
import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { rateLimitSubject } from '../http/client-address.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import { DROP_MESSAGES } from '@storefront/domain/drops.ts';
import type { QueueMail } from '../mail/mail.jobs.ts';
import { EMAIL_ENTRY_PREFIX, NOTIFY_CONFIRM_MS, signNotifyConfirm, verifyNotifyConfirm, verifyWaitlistLeave } from './drop-tokens.ts';
import { notifyConfirmMail } from './drops.mail.ts';
import { confirmNotifyByEmail, leaveByEmail, normaliseEmail, requestNotifyByEmail } from './notify-me.service.ts';
import { leaveWaitlist } from './waitlist.service.ts';

const secretsOf = (config: Config) => [config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS];

/** Requests per client address per 10 minutes, and per address asked for per hour (decision 076). */
export const NOTIFY_LIMITS = { perClient: 30, perAddress: 3 } as const;

/**
 * Notify me signed out and the list's leave link (issue 37 part 4, decision 076). Signed in,
 * notify me is `joinWaitlist`, one click.
 */
export function notifyMeFunctions(deps: { queueMail: QueueMail }): CallableFunction[] {
  return [
    defineFunction('notifyMeByEmail', async ({ variantId, email }, { db, config, ip }) => {
      // Per client address and per address asked for: nobody fills a stranger's inbox.
      await hitRateLimit(db, `notify-ip:${rateLimitSubject(ip)}`, NOTIFY_LIMITS.perClient, 600);
      const address = normaliseEmail(email);
      await hitRateLimit(db, `notify-email:${address}`, NOTIFY_LIMITS.perAddress, 3600);
      const { send, name } = await requestNotifyByEmail(db, variantId, address);
      if (send) {
        const token = signNotifyConfirm(config.AUTH_SECRET, variantId, address, Date.now() + NOTIFY_CONFIRM_MS);
        await deps.queueMail(notifyConfirmMail(address, name, `${publicUrl(config)}/notify/confirm?token=${encodeURIComponent(token)}`));
      }
      return { ok: true as const };
    }),
    defineFunction('confirmNotifyMe', async ({ token }, { db, config }) => {
      const verified = verifyNotifyConfirm(secretsOf(config), token);
      if (!verified) throw new AppError('invalid-argument', DROP_MESSAGES.notifyLinkInvalid);
      return confirmNotifyByEmail(db, verified.variantId, verified.email);
    }),
    defineFunction('leaveWaitlistByLink', async ({ token }, { db, config }) => {
      const verified = verifyWaitlistLeave(secretsOf(config), token);
      if (!verified) throw new AppError('invalid-argument', 'This link is not valid.');
      if (verified.userId.startsWith(EMAIL_ENTRY_PREFIX)) {
        await leaveByEmail(db, verified.variantId, verified.userId.slice(EMAIL_ENTRY_PREFIX.length));
        return { ok: true as const };
      }
      await leaveWaitlist(db, verified.userId, verified.variantId).catch((error: unknown) => {
        // Left already: the link did what it says.
        if (!(error instanceof AppError)) throw error;
      });
      return { ok: true as const };
    }),
  ];
}
