import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { users } from '../../src/db/schema/index.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../database.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { repoRoot, runCli } from './processes.ts';

/**
 * The CLI as an operator meets it in production: it uses DATABASE_URL or an embedded
 * database that exists, never a new empty one; it needs only the settings the command uses.
 */
let database: TestDatabase;
const emptyDataDir = newTestDataDir('cli-empty');
const secret = 'operator-secret-operator-secret-0123456789';

beforeAll(async () => {
  database = await createTestDatabase();
  await createAccount(
    database.db,
    testConfig(),
    { email: 'owner@example.org', username: 'ShopOwner', name: 'Owner', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
    { emailVerified: true },
  );
});

afterAll(async () => {
  await database?.close();
  fs.rmSync(emptyDataDir, { recursive: true, force: true });
});

describe('the operator CLI in production', () => {
  it('refuses to make a new embedded database when DATABASE_URL is forgotten, naming DATABASE_URL', async () => {
    const result = await runCli(['make-admin', 'owner@example.org'], { NODE_ENV: 'production', DATA_DIR: emptyDataDir });
    expect(result.code).toBe(1);
    expect(result.output).toContain(`DATABASE_URL: required when NODE_ENV=production: there is no embedded database in DATA_DIR ${emptyDataDir} to use.`);
    expect(fs.existsSync(path.join(emptyDataDir, 'pg'))).toBe(false);
  });

  it('runs make-admin with DATABASE_URL alone: no PUBLIC_URL, SMTP_URL or AUTH_SECRET needed', async () => {
    const repoData = path.join(repoRoot, 'data');
    const hadRepoData = fs.existsSync(repoData);
    const result = await runCli(['make-admin', 'owner@example.org'], { NODE_ENV: 'production', DATABASE_URL: database.connectionString });
    expect(result.output).toContain('owner@example.org is now an admin.');
    expect(result.output).toMatch(/Database: the PostgreSQL at DATABASE_URL \(127\.0\.0\.1:\d+\/t_[0-9a-f]+\)/);
    expect(result.code).toBe(0);
    const [owner] = await database.db.select({ role: users.role }).from(users).where(eq(users.email, 'owner@example.org'));
    expect(owner!.role).toBe('admin');
    // Nothing was made in the default DATA_DIR either.
    expect(fs.existsSync(repoData)).toBe(hadRepoData);

    const unknown = await runCli(['make-admin', 'nobody@example.org'], { NODE_ENV: 'production', DATABASE_URL: database.connectionString });
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain('No account has the email nobody@example.org.');
  });

  it('names every setting a command lacks at once, and uses them when set', async () => {
    const lacking = await runCli(['create-label-account', 'streetflavor', 'label@example.org'], { NODE_ENV: 'production', DATABASE_URL: database.connectionString });
    expect(lacking.code).toBe(1);
    expect(lacking.output).toContain('PUBLIC_URL: required by this command when NODE_ENV=production');
    expect(lacking.output).toContain('AUTH_SECRET: required by this command when NODE_ENV=production');

    const made = await runCli(['create-label-account', 'streetflavor', 'label@example.org'], {
      NODE_ENV: 'production',
      DATABASE_URL: database.connectionString,
      PUBLIC_URL: 'https://shop.example',
      AUTH_SECRET: secret,
    });
    expect(made.output).toContain('Created the label account streetflavor (label@example.org), verified; every new account follows it');
    expect(made.output).toMatch(/^https:\/\/shop\.example\/api\/auth\/reset-password\/\S+\?callbackURL=%2Freset-password$/m);
    expect(made.code).toBe(0);
    const [label] = await database.db.select().from(users).where(eq(users.email, 'label@example.org'));
    expect(label).toMatchObject({ usernameLower: 'streetflavor', emailVerified: true, accountType: 'RecordLabel' });
  });
});
