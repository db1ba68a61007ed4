import { randomBytes } from 'node:crypto';
import type { Seeder } from '../seed/seed.ts';
import { grantCredits } from '../wallet/wallet.commands.ts';
import { createAccount } from './accounts.service.ts';

export const DEMO_SHOPPER = { email: 'shopper@example.com', password: 'shopper-demo-pass', username: 'demoshopper', name: 'Demo Shopper' };
export const DEMO_ADMIN = { email: 'admin@example.com', password: 'admin-demo-pass', username: 'demoadmin', name: 'Demo Admin' };

/**
 * Sample accounts for a new embedded database: the signup-admin accounts every new
 * account follows (random passwords), then a verified shopper and a verified admin.
 */
export const accountsSeeder: Seeder = {
  name: 'accounts',
  async run(db, { config, log }) {
    for (const username of config.SIGNUP_FOLLOW_USERNAMES) {
      const password = randomBytes(18).toString('base64url');
      await createAccount(
        db,
        config,
        { email: `${username.toLowerCase()}@accounts.example`, password, confirmPassword: password, name: username, username, accountType: 'RecordLabel', acceptedTerms: true },
        { emailVerified: true, allowReservedUsername: true },
      ).catch((error: unknown) => log(`Could not create the signup-admin account ${username}: ${String(error)}`));
    }
    for (const [demo, role] of [
      [DEMO_SHOPPER, 'user'],
      [DEMO_ADMIN, 'admin'],
    ] as const) {
      await createAccount(db, config, { ...demo, confirmPassword: demo.password, acceptedTerms: true }, { emailVerified: true, role });
    }
    await grantCredits(db, DEMO_SHOPPER.email, '500', 'seed:demo-shopper');
    log('Demo accounts (development only):');
    log(`  shopper  ${DEMO_SHOPPER.email} / ${DEMO_SHOPPER.password}  ($500.00 wallet credit)`);
    log(`  admin    ${DEMO_ADMIN.email} / ${DEMO_ADMIN.password}`);
  },
};
