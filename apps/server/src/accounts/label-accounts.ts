import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { isReservedUsername } from '@storefront/domain/accounts.ts';
import { type Config, publicUrl } from '../config.ts';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { Mail } from '../mail/mailer.ts';
import { createAuth } from './auth.ts';
import { createAccount } from './accounts.service.ts';

const labelAccountInput = z.object({
  username: z.string().trim().min(1, 'Give the account a username.').max(25, 'A username has at most 25 characters.'),
  email: z.email('Give the account a valid email address.'),
});

export interface LabelAccount {
  userId: string;
  email: string;
  username: string;
  reserved: boolean;
  /** A one-time link that sets the account's password (valid for an hour). */
  resetUrl: string;
}

/**
 * An official account of the label (one of SIGNUP_FOLLOW_USERNAMES, or another reserved
 * name such as `support`): verified at once, with an unusable random password, and a
 * one-time password-reset link for whoever will run it. Only the CLI calls this: signup
 * refuses reserved usernames.
 */
export async function createLabelAccount(db: Db, config: Config, input: { username: string; email: string }): Promise<LabelAccount> {
  const parsed = labelAccountInput.safeParse(input);
  if (!parsed.success) throw new AppError('invalid-argument', parsed.error.issues[0]!.message);
  const { username, email } = parsed.data;
  const password = randomBytes(24).toString('base64url');
  const account = await createAccount(
    db,
    config,
    { email, username, name: username, password, confirmPassword: password, accountType: 'RecordLabel', acceptedTerms: true },
    { emailVerified: true, allowReservedUsername: true },
  );
  if (!account.created) throw new AppError('already-exists', `An account with the email ${account.email} already exists; nothing was created.`);

  // The same link Better Auth mails for "Forgot password", captured instead of sent.
  let resetMail: Mail | undefined;
  const auth = createAuth(config, db, async (mail) => {
    resetMail = mail;
  });
  await auth.api.requestPasswordReset({ body: { email: account.email, redirectTo: '/reset-password' } });
  const resetUrl = resetMail?.text.split(/\s+/).find((word) => word.startsWith(`${publicUrl(config)}/`));
  if (!resetUrl) throw new Error(`The account ${username} was created, but no password-reset link was made; use "Forgot password" on the login page.`);
  return { userId: account.userId, email: account.email, username, reserved: isReservedUsername(username, config.SIGNUP_FOLLOW_USERNAMES), resetUrl };
}
