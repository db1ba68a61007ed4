import { defineFunction } from '../functions/registry.ts';
import { rateLimitSubject } from '../http/client-address.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import type { Mail } from '../mail/mailer.ts';
import { accountDeletedMail, emailChangeMail, emailChangeNoticeMail, emailInUseMail, passwordChangedMail } from '../mail/templates.ts';
import { publicUrl } from '../config.ts';
import { changePassword, confirmEmailChange, deleteAccount, deletionSummary, exportMyData, requestEmailChange, updateProfile } from './account-settings.service.ts';

/**
 * The account page's functions (decision 032). Whatever checks a password is limited per
 * account and per address, like sign-in; links and mails use PUBLIC_URL, never a request's Host.
 */
export function accountSettingsFunctions(enqueueMail: (mail: Mail) => Promise<void>, endSingleSignOn: (userId: string) => Promise<unknown>) {
  return [
    defineFunction('changePassword', async ({ currentPassword, newPassword }, { db, config, caller, ip }) => {
      await hitRateLimit(db, `account-password:${caller.userId}`, 10, 600);
      await hitRateLimit(db, `account-password-ip:${rateLimitSubject(ip)}`, 30, 600);
      const { otherSessionsEnded, email, name } = await changePassword(db, endSingleSignOn, caller.userId, caller.sessionId, currentPassword, newPassword);
      await enqueueMail(passwordChangedMail(email, name, `${publicUrl(config)}/account`));
      return { ok: true, otherSessionsEnded };
    }),
    defineFunction('requestEmailChange', async ({ newEmail, password }, { db, config, caller, ip }) => {
      await hitRateLimit(db, `account-email:${caller.userId}`, 5, 600);
      await hitRateLimit(db, `account-email-ip:${rateLimitSubject(ip)}`, 20, 600);
      const request = await requestEmailChange(db, config, caller.userId, newEmail, password);
      if (request.kind === 'link') {
        const base = publicUrl(config);
        await enqueueMail(emailChangeMail(request.to, request.name, `${base}/account/confirm-email?token=${request.token}`));
        await enqueueMail(emailChangeNoticeMail(request.oldEmail, request.name, request.to, `${base}/account`));
      } else {
        await enqueueMail(emailInUseMail(request.to, request.name));
      }
      // The same answer whether or not the address has an account.
      return { ok: true, sentTo: newEmail };
    }),
    defineFunction('confirmEmailChange', async ({ token }, { db, ip }) => {
      await hitRateLimit(db, `account-email-confirm:${rateLimitSubject(ip)}`, 20, 600);
      const { email } = await confirmEmailChange(db, token);
      return { ok: true, email };
    }),
    defineFunction('updateProfile', async (input, { db, caller }) => {
      await hitRateLimit(db, `account-profile:${caller.userId}`, 30, 600);
      await updateProfile(db, caller.userId, input);
      return { ok: true };
    }),
    defineFunction('getDeletionSummary', async (_input, { db, caller }) => deletionSummary(db, caller.userId, caller.isAdmin)),
    defineFunction('deleteAccount', async ({ password }, { db, config, caller, ip }) => {
      await hitRateLimit(db, `account-delete:${caller.userId}`, 5, 600);
      await hitRateLimit(db, `account-delete-ip:${rateLimitSubject(ip)}`, 20, 600);
      const gone = await deleteAccount(db, config, endSingleSignOn, caller.userId, caller.isAdmin, password);
      await enqueueMail(accountDeletedMail(gone.email, gone.name));
      return { ok: true };
    }),
    defineFunction('exportMyData', async (_input, { db, caller }) => {
      await hitRateLimit(db, `account-export:${caller.userId}`, 10, 600);
      return exportMyData(db, caller.userId);
    }),
  ];
}
