import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_MESSAGES } from '@storefront/domain/console.ts';
import type { FunctionsError } from '@storefront/sdk/callable.ts';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { adminAudit, users } from '../../src/db/schema/index.ts';
import { startTestApp, TEST_PASSWORD, type TestApp } from '../app.ts';

/**
 * Issue 25, security 12: two admins revoking each other at once both succeeded and the
 * shop had no admin left. No ADMIN_EMAILS here: the role is the only way to be an admin.
 */
let shop: TestApp;
const ids: Record<string, string> = {};
const tokens: Record<string, string> = {};
const NAMES = ['ann', 'ben', 'cal', 'dee'];

beforeAll(async () => {
  shop = await startTestApp({
    config: { env: { ADMIN_EMAILS: '' } },
    async seed({ db, config }) {
      for (const name of NAMES) {
        const form = { email: `${name}@example.org`, username: name, name, password: TEST_PASSWORD, confirmPassword: TEST_PASSWORD, acceptedTerms: true };
        ids[name] = (await createAccount(db, config, form, { emailVerified: true, role: 'admin' })).userId;
      }
    },
  });
  for (const name of NAMES) tokens[name] = await shop.signIn(`${name}@example.org`);
});

afterAll(async () => {
  await shop?.close();
});

const revoke = (by: string, whom: string) => shop.functions(() => tokens[by]).call('setAdmin', { email: `${whom}@example.org`, isAdmin: false });
const settle = (calls: Promise<unknown>[]) => Promise.allSettled(calls);
const admins = async () => (await shop.db.select({ email: users.email }).from(users).where(eq(users.role, 'admin'))).map((row) => row.email);
const setAdmins = async (names: string[]) => {
  await shop.db
    .update(users)
    .set({ role: 'user' })
    .where(inArray(users.id, Object.values(ids)));
  if (names.length > 0)
    await shop.db
      .update(users)
      .set({ role: 'admin' })
      .where(
        inArray(
          users.id,
          names.map((name) => ids[name]!),
        ),
      );
};

/** Backends of this database waiting for a row lock. */
async function waitingForLocks(): Promise<number> {
  const result = await shop.db.execute<{ n: number }>(
    sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
  );
  return result.rows[0]!.n;
}

describe('the last admin (issue 25, security 12)', () => {
  it('two admins revoking each other, forced to run together: one wins, one admin stays', async () => {
    await setAdmins(['ann', 'ben']);
    let outcomes: PromiseSettledResult<unknown>[] = [];
    // A transaction holds both rows until both revocations are past the role check of their
    // request and waiting on a row: the interleaving that let both through, every time.
    await shop.db.transaction(async (tx) => {
      await tx
        .select()
        .from(users)
        .where(inArray(users.id, [ids.ann!, ids.ben!]))
        .for('update');
      const racing = settle([revoke('ann', 'ben'), revoke('ben', 'ann')]);
      const deadline = Date.now() + 20_000;
      while ((await waitingForLocks()) < 2) {
        if (Date.now() > deadline) throw new Error('the two revocations never waited on the rows');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      void racing.then((settled) => (outcomes = settled));
    });
    const deadline = Date.now() + 20_000;
    while (outcomes.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect((refused.reason as FunctionsError).message).toBe(CONSOLE_MESSAGES.noLongerAdmin);
    expect(await admins()).toHaveLength(1);
    // One revocation happened, one audit row says so.
    const audits = await shop.db
      .select()
      .from(adminAudit)
      .where(inArray(adminAudit.targetId, [ids.ann!, ids.ben!]));
    expect(audits.filter((row) => row.action === 'admin.revoke')).toHaveLength(1);
  });

  it('every admin revoking every other at once, ten rounds: never fewer than one admin', async () => {
    for (let round = 0; round < 10; round += 1) {
      await setAdmins(NAMES);
      const calls = NAMES.flatMap((by) => NAMES.filter((whom) => whom !== by).map((whom) => revoke(by, whom)));
      const settled = await settle(calls);
      const left = await admins();
      expect(left.length, `round ${round}`).toBeGreaterThanOrEqual(1);
      // Each refusal is a sentence, never a server error; each change removed one admin.
      for (const outcome of settled) {
        if (outcome.status === 'rejected') expect((outcome.reason as FunctionsError).code, (outcome.reason as Error).message).toMatch(/^(permission-denied|failed-precondition)$/);
      }
      const changed = settled.filter((outcome) => outcome.status === 'fulfilled' && (outcome.value as { changed: boolean }).changed);
      expect(changed).toHaveLength(NAMES.length - left.length);
    }
  });

  it('the last admin cannot be revoked, even by the CLI', async () => {
    await setAdmins(['dee']);
    const { setAdmin } = await import('../../src/admin/admins.service.ts');
    await expect(setAdmin(shop.db, shop.config, { email: 'dee@example.org', isAdmin: false }, { operator: 'cli' })).rejects.toMatchObject({ message: CONSOLE_MESSAGES.lastAdmin });
    expect(await admins()).toEqual(['dee@example.org']);
  });
});
