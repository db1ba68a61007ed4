import { eq, inArray, or } from 'drizzle-orm';
import { CONSOLE_MESSAGES, type AdminAccount } from '@storefront/domain/console.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { users } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { isAdmin } from '../accounts/accounts.service.ts';
import { AppError } from '../errors.ts';
import { recordAudit, type Actor } from '../audit/audit.service.ts';

/**
 * Every admin: by the database role (make-admin, the console) or by ADMIN_EMAILS (verified
 * accounts only, as the server decides per request).
 */
export async function listAdmins(db: Db, config: Config): Promise<AdminAccount[]> {
  const fromSetting = config.ADMIN_EMAILS.map((email) => email.toLowerCase());
  const rows = await db
    .select({ id: users.id, email: users.email, name: users.name, role: users.role, emailVerified: users.emailVerified })
    .from(users)
    .where(fromSetting.length > 0 ? or(eq(users.role, 'admin'), inArray(users.email, fromSetting)) : eq(users.role, 'admin'))
    .orderBy(users.email);
  return rows
    .map((row) => ({
      userId: row.id,
      email: row.email,
      name: row.name,
      fromSetting: row.emailVerified && fromSetting.includes(row.email.toLowerCase()),
      fromRole: row.role === 'admin',
    }))
    .filter((admin) => admin.fromSetting || admin.fromRole);
}

/**
 * Grants or revokes the admin role, audited in the same transaction. Refused: an unknown
 * or unverified email (grant), an ADMIN_EMAILS admin (only the setting can revoke it),
 * revoking oneself (a shop must not lock out its last admin by a slip), an actor who is no
 * longer an admin, and the revocation of the last admin.
 *
 * Every role change first locks the rows of every admin (in id order, so changes queue
 * instead of deadlocking) and decides on what is committed once it holds them (read
 * committed: a row that stopped being admin while it waited is dropped from the set).
 * Two admins revoking each other at once: the second sees it is no longer an admin and
 * changes nothing (issue 25, security 12); the shop never ends with no admin.
 */
export async function setAdmin(db: Db, config: Config, input: { email: string; isAdmin: boolean }, actor: Actor): Promise<boolean> {
  const email = input.email.trim().toLowerCase();
  const fromSetting = config.ADMIN_EMAILS.map((value) => value.toLowerCase());
  return runTransaction(
    db,
    async (tx) => {
      const locked = await tx
        .select({ id: users.id, email: users.email, role: users.role, emailVerified: users.emailVerified })
        .from(users)
        .where(fromSetting.length > 0 ? or(eq(users.role, 'admin'), inArray(users.email, fromSetting)) : eq(users.role, 'admin'))
        .orderBy(users.id)
        .for('update');
      const admins = locked.filter((row) => isAdmin(config, row));
      if ('userId' in actor && !admins.some((admin) => admin.id === actor.userId)) throw new AppError('permission-denied', CONSOLE_MESSAGES.noLongerAdmin);
      const [user] = await tx.select().from(users).where(eq(users.email, email)).for('update');
      if (!user) throw new AppError('not-found', CONSOLE_MESSAGES.accountNotFound);
      if (input.isAdmin && !user.emailVerified && 'userId' in actor) throw new AppError('failed-precondition', CONSOLE_MESSAGES.accountNotVerified);
      if (!input.isAdmin) {
        if (fromSetting.includes(email)) throw new AppError('failed-precondition', CONSOLE_MESSAGES.adminFromSetting);
        if ('userId' in actor && actor.userId === user.id) throw new AppError('failed-precondition', CONSOLE_MESSAGES.notYourself);
        if (user.role === 'admin' && !admins.some((admin) => admin.id !== user.id)) throw new AppError('failed-precondition', CONSOLE_MESSAGES.lastAdmin);
      }
      const role = input.isAdmin ? 'admin' : 'user';
      if (user.role === role) return false;
      await tx.update(users).set({ role, updatedAt: new Date() }).where(eq(users.id, user.id));
      // The same shape as setProductActive's entry (catalog.service.ts): each toggle writes its own
      // audit entry through recordAudit, the shared part; what they toggle has nothing in common.
      await recordAudit(tx, {
        actor,
        action: input.isAdmin ? 'admin.grant' : 'admin.revoke',
        targetType: 'account',
        targetId: user.id,
        before: { email: user.email, role: user.role },
        after: { email: user.email, role },
      });
      return true;
    },
    // Row locks decide here, on the latest committed rows; serializable would add retries, not safety.
    { isolationLevel: 'read committed' },
  );
}
