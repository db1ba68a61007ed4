import { randomBytes, randomInt } from 'node:crypto';
import { and, asc, eq, isNull } from 'drizzle-orm';
import { CODE_ALPHABET, CODE_LENGTH, DIGITAL_MESSAGES } from '@storefront/domain/digital.ts';
import type { Db } from '../db/client.ts';
import { downloadCodes, releases, users } from '../db/schema/index.ts';
import { runTransaction } from '../db/transaction.ts';
import { AppError } from '../errors.ts';
import { grantOwnership } from './library.service.ts';

/**
 * Download codes (issue 28): single-use, for the cards in a vinyl sleeve. Redeeming is one
 * conditional UPDATE (`... WHERE redeemed_at IS NULL`): of any number of concurrent
 * redemptions of one code exactly one gets the row back, and it grants the release in the
 * same transaction. The same account redeeming its own code again gets the same answer.
 */
function newCode(): string {
  let code = '';
  for (let index = 0; index < CODE_LENGTH; index += 1) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

export async function createDownloadCodes(db: Db, releaseId: number, count: number): Promise<{ batch: string; codes: string[] }> {
  const [release] = await db.select({ id: releases.id }).from(releases).where(eq(releases.id, releaseId));
  if (!release) throw new AppError('not-found', DIGITAL_MESSAGES.releaseNotFound);
  const batch = `${new Date().toISOString().slice(0, 10)}-${randomBytes(3).toString('hex')}`;
  const codes: string[] = [];
  // 31^12 codes: a collision is next to impossible, and one is simply drawn again.
  while (codes.length < count) {
    const wanted = Array.from({ length: Math.min(1000, count - codes.length) }, newCode);
    const inserted = await db
      .insert(downloadCodes)
      .values(wanted.map((code) => ({ code, releaseId, batch })))
      .onConflictDoNothing()
      .returning({ code: downloadCodes.code });
    codes.push(...inserted.map((row) => row.code));
  }
  return { batch, codes };
}

export async function listDownloadCodes(db: Db, releaseId: number) {
  const rows = await db
    .select({ code: downloadCodes.code, batch: downloadCodes.batch, createdAt: downloadCodes.createdAt, redeemedAt: downloadCodes.redeemedAt, redeemedBy: users.email })
    .from(downloadCodes)
    .leftJoin(users, eq(users.id, downloadCodes.redeemedBy))
    .where(eq(downloadCodes.releaseId, releaseId))
    .orderBy(asc(downloadCodes.createdAt), asc(downloadCodes.code));
  return rows.map((row) => ({ ...row, createdAt: row.createdAt.toISOString(), redeemedAt: row.redeemedAt?.toISOString() ?? null }));
}

export async function redeemDownloadCode(db: Db, userId: string, code: string): Promise<{ releaseId: number; title: string }> {
  return runTransaction(
    db,
    async (tx) => {
      const [claimed] = await tx
        .update(downloadCodes)
        .set({ redeemedBy: userId, redeemedAt: new Date() })
        .where(and(eq(downloadCodes.code, code), isNull(downloadCodes.redeemedAt)))
        .returning({ releaseId: downloadCodes.releaseId });
      let releaseId = claimed?.releaseId;
      if (!claimed) {
        const [existing] = await tx.select().from(downloadCodes).where(eq(downloadCodes.code, code));
        if (!existing) throw new AppError('not-found', DIGITAL_MESSAGES.codeNotFound);
        if (existing.redeemedBy !== userId) throw new AppError('failed-precondition', DIGITAL_MESSAGES.codeUsed);
        releaseId = existing.releaseId;
      } else {
        await grantOwnership(tx, { userId, releaseId: claimed.releaseId, trackId: null, source: 'code', sourceRef: code });
      }
      const [release] = await tx.select({ title: releases.title }).from(releases).where(eq(releases.id, releaseId!));
      return { releaseId: releaseId!, title: release?.title ?? '' };
    },
    { isolationLevel: 'read committed' },
  );
}
