import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { usdToCents } from '@storefront/domain/catalog.ts';
import type { Db } from '../db/client.ts';
import { users } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { credit, getBalance } from './wallet.service.ts';

/** Adds wallet credit to the account with this email, through the ledger. */
export async function grantCredits(db: Db, email: string, usd: string, reference = `grant:${randomUUID()}`) {
  const cents = usdToCents(usd);
  if (cents === undefined || cents <= 0) throw new AppError('invalid-argument', `"${usd}" is not a positive USD amount.`);
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email.trim().toLowerCase()));
  if (!user) throw new AppError('not-found', `No account has the email ${email}.`);
  await runTransaction(db, (tx) => credit(tx, user.id, cents, reference, 'grant', 'granted by an operator'), { isolationLevel: 'read committed' });
  return { userId: user.id, cents, balance: await getBalance(db, user.id) };
}
