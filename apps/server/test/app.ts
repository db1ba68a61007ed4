import type { FastifyInstance } from 'fastify';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { createAccount } from '../src/accounts/accounts.service.ts';
import { buildApp, type BuildAppOptions } from '../src/app.ts';
import type { Config } from '../src/config.ts';
import type { Db } from '../src/db/client.ts';
import { freePort } from '../src/db/embedded.ts';
import { createTestDatabase, testConfig, type TestConfigOverrides, type TestDatabase } from './database.ts';

/** The password of every account a test app makes. */
export const TEST_PASSWORD = 'pass words';

export interface TestApp {
  app: FastifyInstance;
  database: TestDatabase;
  db: Db;
  config: Config;
  /** http://127.0.0.1:<port>, the app's PUBLIC_URL, listening. */
  baseUrl: string;
  /** A verified account `<name>@example.org` with username `name`; its user id. */
  account(name: string): Promise<string>;
  /** Signs in through the sdk, as the web app does; the bearer token. */
  signIn(email: string, password?: string): Promise<string>;
  /** The callable-functions client, signed in with the token `token()` gives (none: signed out). */
  functions(token?: () => string | undefined): ReturnType<typeof createFunctionsClient>;
  /** Closes the app, then drops its database (unless it was given one). */
  close(): Promise<void>;
}

type BuildOptions = Omit<BuildAppOptions, 'config' | 'db'>;

export interface StartTestAppOptions {
  /** A database another test app already uses (two processes on one database); kept on close. */
  database?: TestDatabase | { max?: number };
  /** Settings on top of the test defaults; PORT and PUBLIC_URL default to the free port. */
  config?: TestConfigOverrides;
  /** Runs after the database and config exist, before the app is built (accounts, products). */
  seed?(shop: { db: Db; config: Config }): Promise<unknown>;
  /** buildApp's other options (a fake Stripe, test functions, a logger), or made from the config. */
  build?: BuildOptions | ((config: Config) => BuildOptions);
  /** false: no port, for tests that only `app.inject()` (default true). */
  listen?: boolean;
}

/**
 * One whole shop for a test file, as a server process would run it: its own database (a
 * copy of the migrated template), a config whose PORT and PUBLIC_URL are a free port on
 * 127.0.0.1, and the app listening there. Call `close()` in afterAll. Every server test
 * that builds an app goes through here (issue 14 item 3).
 */
export async function startTestApp(options: StartTestAppOptions = {}): Promise<TestApp> {
  const shared = options.database && 'db' in options.database ? options.database : undefined;
  const database = shared ?? (await createTestDatabase(options.database as { max?: number } | undefined));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const { env, ...fields } = options.config ?? {};
  const config = testConfig({ ...fields, env: { PORT: String(port), PUBLIC_URL: baseUrl, ...env } });
  await options.seed?.({ db: database.db, config });
  const build = typeof options.build === 'function' ? options.build(config) : options.build;
  const app = await buildApp({ logger: false, ...build, config, db: database.db });
  if (options.listen !== false) await app.listen({ port, host: '127.0.0.1' });
  const functions = (token?: () => string | undefined) => createFunctionsClient({ baseUrl, ...(token ? { getAuthToken: token } : {}) });
  return {
    app,
    database,
    db: database.db,
    config,
    baseUrl,
    async account(name) {
      const form = { email: `${name}@example.org`, username: name, name, password: TEST_PASSWORD, confirmPassword: TEST_PASSWORD, acceptedTerms: true };
      return (await createAccount(database.db, config, form, { emailVerified: true })).userId;
    },
    async signIn(email, password = TEST_PASSWORD) {
      return (await createAuthClient({ baseUrl, functions: functions() }).signIn(email, password)).token!;
    },
    functions,
    async close() {
      await app.close();
      if (!shared) await database.close();
    },
  };
}
