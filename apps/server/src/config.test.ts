import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir } from '../test/database.ts';
import { ConfigError, loadConfig, takesTestPayments, type Config } from './config.ts';

// Every case sets AUTH_SECRET unless it is about it, so no case writes a secret into ./data.
const SECRET = 'a-test-secret-that-is-long-enough-1234';
const PRODUCTION = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://shop.example',
  AUTH_SECRET: SECRET,
  SMTP_URL: 'smtp://mail.example:587',
  PAYMENT_PROVIDER: 'stripe',
  STRIPE_SECRET_KEY: 'sk_live_1',
  STRIPE_WEBHOOK_SECRET: 'whsec_1',
};

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

const temp: { remove(): void }[] = [];
afterEach(() => {
  for (const dir of temp.splice(0)) dir.remove();
});

describe('loadConfig: defaults', () => {
  it('gives the documented defaults', () => {
    const config = loadConfig({ AUTH_SECRET: SECRET });
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      PORT: 3000,
      // Development listens on this machine only (issue 12, item 4).
      HOST: '127.0.0.1',
      TRUSTED_PROXIES: [],
      DATA_DIR: './data',
      dataDir: path.resolve('./data'),
      PAYMENT_PROVIDER: 'local',
      ADMIN_EMAILS: [],
      LOG_LEVEL: 'info',
      isProduction: false,
      AUTH_SECRET: SECRET,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.SMTP_URL).toBeUndefined();
    expect(config.PUBLIC_URL).toBeUndefined();
    // No metrics unless asked for (decision 040).
    expect(config.METRICS_PORT).toBeUndefined();
    expect(config.METRICS_TOKEN).toBeUndefined();
    expect(fs.existsSync(path.join(config.contentDir, 'history.json'))).toBe(true);
    expect(config.webDistDir.endsWith(path.join('apps', 'web', 'dist'))).toBe(true);
  });

  it('ignores variables it does not know', () => {
    expect(loadConfig({ AUTH_SECRET: SECRET, PATH: '/usr/bin', HOME: '/root' }).PORT).toBe(3000);
  });
});

describe('loadConfig: values', () => {
  it.each<[Record<string, string>, Record<string, unknown>]>([
    [{ PORT: '8080' }, { PORT: 8080 }],
    [{ PORT: '0' }, { PORT: 0 }],
    [{ NODE_ENV: 'test' }, { NODE_ENV: 'test', isProduction: false }],
    [{ DATABASE_URL: 'postgres://u:p@db.example:5432/shop' }, { DATABASE_URL: 'postgres://u:p@db.example:5432/shop' }],
    [{ DATABASE_URL: 'postgresql://db.example/shop' }, { DATABASE_URL: 'postgresql://db.example/shop' }],
    [{ ADMIN_EMAILS: 'Owner@Label.example' }, { ADMIN_EMAILS: ['owner@label.example'] }],
    [{ ADMIN_EMAILS: ' a@x.example, B@Y.example ,, ' }, { ADMIN_EMAILS: ['a@x.example', 'b@y.example'] }],
    [
      { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' },
      { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1' },
    ],
    [PRODUCTION, { isProduction: true, PUBLIC_URL: 'https://shop.example', HOST: '0.0.0.0', PAYMENT_PROVIDER: 'stripe' }],
    [{ NODE_ENV: 'test' }, { HOST: '127.0.0.1' }],
    [{ HOST: '0.0.0.0' }, { HOST: '0.0.0.0' }],
    [{ ...PRODUCTION, HOST: '10.0.0.7' }, { HOST: '10.0.0.7' }],
    [{ TRUSTED_PROXIES: 'loopback' }, { TRUSTED_PROXIES: ['127.0.0.0/8', '::1/128'] }],
    [{ TRUSTED_PROXIES: ' 10.0.0.0/8, 192.0.2.7 ,FD00::/8,::ffff:198.51.100.1' }, { TRUSTED_PROXIES: ['10.0.0.0/8', '192.0.2.7/32', 'fd00::/8', '198.51.100.1/32'] }],
    [
      { ...PRODUCTION, PAYMENT_PROVIDER: 'local', ALLOW_TEST_PAYMENTS: '1' },
      { PAYMENT_PROVIDER: 'local', ALLOW_TEST_PAYMENTS: true },
    ],
    [{ ALLOW_TEST_PAYMENTS: '0' }, { ALLOW_TEST_PAYMENTS: false }],
    [{ DATA_DIR: '/srv/shop-data' }, { dataDir: '/srv/shop-data' }],
  ])('%j -> %j', (env, expected) => {
    expect(loadConfig({ AUTH_SECRET: SECRET, ...env })).toMatchObject(expected);
  });

  it.each<[keyof Config, unknown]>([
    ['PORT', 3000],
    ['DATABASE_URL', undefined],
    ['SMTP_URL', undefined],
    ['ADMIN_EMAILS', []],
    ['PAYMENT_PROVIDER', 'local'],
    ['NODE_ENV', 'development'],
    ['HOST', '127.0.0.1'],
    ['TRUSTED_PROXIES', []],
  ])('an empty %s counts as unset (-> %j)', (name, expected) => {
    expect(loadConfig({ AUTH_SECRET: SECRET, [name]: '' })[name]).toEqual(expected);
  });
});

describe('loadConfig: a bad value stops start-up with a message naming the variable', () => {
  it.each<[string, Record<string, string>]>([
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['PORT', { PORT: '80.5' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['DATABASE_URL', { DATABASE_URL: 'localhost:5432' }],
    ['ADMIN_EMAILS', { ADMIN_EMAILS: 'owner@label.example, not-an-email' }],
    ['NODE_ENV', { NODE_ENV: 'staging' }],
    ['PAYMENT_PROVIDER', { PAYMENT_PROVIDER: 'paypal' }],
    ['STRIPE_SECRET_KEY', { PAYMENT_PROVIDER: 'stripe' }],
    ['STRIPE_SECRET_KEY', { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'pk_live_1', STRIPE_WEBHOOK_SECRET: 'whsec_1' }],
    ['STRIPE_WEBHOOK_SECRET', { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_1' }],
    ['PUBLIC_URL', { ...PRODUCTION, PUBLIC_URL: '' }],
    ['PUBLIC_URL', { PUBLIC_URL: 'shop.example' }],
    ['AUTH_SECRET', { ...PRODUCTION, AUTH_SECRET: '' }],
    ['AUTH_SECRET', { AUTH_SECRET: 'short' }],
    ['SMTP_URL', { ...PRODUCTION, SMTP_URL: '' }],
    ['SMTP_URL', { SMTP_URL: 'http://mail.example' }],
    ['CONTACT_EMAIL', { CONTACT_EMAIL: 'info' }],
    ['LABEL_TIME_ZONE', { LABEL_TIME_ZONE: 'Mars/Olympus_Mons' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: 'proxy.example' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '10.0.0.0/33' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '10.0.0.1, *' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '::1/129' }],
    ['TRUSTED_PROXIES', { TRUSTED_PROXIES: '10.0.0.0/8/8' }],
    ['ALLOW_TEST_PAYMENTS', { ALLOW_TEST_PAYMENTS: 'yes' }],
    ['METRICS_PORT', { METRICS_PORT: 'metrics' }],
    ['METRICS_PORT', { METRICS_PORT: '3000' }],
    ['METRICS_PORT', { PORT: '8080', METRICS_PORT: '8080' }],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'too-short' }],
    // A metrics port other hosts reach needs the token (issue 40 item 10).
    ['METRICS_HOST', { METRICS_PORT: '9101', METRICS_HOST: '0.0.0.0' }],
    ['METRICS_HOST', { METRICS_PORT: '9101', METRICS_HOST: '::' }],
    ['METRICS_HOST', { METRICS_PORT: '9101', METRICS_HOST: '10.0.0.5' }],
    ['STRIPE_SECRET_KEY', { ...PRODUCTION, PAYMENT_PROVIDER: '', STRIPE_SECRET_KEY: '' }],
  ])('%s in %j', (name, env) => {
    const error = configError({ AUTH_SECRET: SECRET, ...env });
    expect(error.message).toMatch(/^Invalid settings:/);
    expect(error.message).toMatch(new RegExp(`^  ${name}(\\.\\d+)?: `, 'm'));
  });

  it('names every bad variable at once', () => {
    const error = configError({ AUTH_SECRET: SECRET, PORT: 'abc', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' });
    for (const name of ['PORT', 'DATABASE_URL', 'LOG_LEVEL']) expect(error.message).toContain(`  ${name}: `);
  });

  it('names every missing production setting and every bad value in one message', () => {
    const error = configError({ NODE_ENV: 'production', PORT: 'abc', LOG_LEVEL: 'loud' });
    for (const name of ['PORT', 'LOG_LEVEL', 'PUBLIC_URL', 'AUTH_SECRET', 'SMTP_URL', 'STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET']) {
      expect(error.message).toMatch(new RegExp(`^  ${name}: `, 'm'));
    }
  });

  it('does not echo a secret it refuses', () => {
    const error = configError({ AUTH_SECRET: SECRET, STRIPE_SECRET_KEY: 'rk_live_verysecret' });
    expect(error.message).not.toContain('verysecret');
  });
});

describe('loadConfig: fake card payments in production (issue 13)', () => {
  it('refuses PAYMENT_PROVIDER=local in production, with a message saying why and what to do', () => {
    const error = configError({ ...PRODUCTION, PAYMENT_PROVIDER: 'local', STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '' });
    expect(error.message).toContain('  PAYMENT_PROVIDER: local takes no money (its cards are fake), so it is refused when NODE_ENV=production.');
    expect(error.message).toContain('ALLOW_TEST_PAYMENTS=1');
    expect(configError({ ...PRODUCTION, PAYMENT_PROVIDER: 'local', ALLOW_TEST_PAYMENTS: '0' }).message).toContain('PAYMENT_PROVIDER: local takes no money');
  });

  it('does not fall back to the local provider in production: an unset PAYMENT_PROVIDER means stripe and needs its keys', () => {
    const error = configError({ ...PRODUCTION, PAYMENT_PROVIDER: '', STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '' });
    expect(error.message).toContain('  STRIPE_SECRET_KEY: required when NODE_ENV=production (PAYMENT_PROVIDER is stripe unless set)');
    expect(error.message).toContain('  STRIPE_WEBHOOK_SECRET: required when');
    expect(loadConfig({ ...PRODUCTION, PAYMENT_PROVIDER: '' }).PAYMENT_PROVIDER).toBe('stripe');
  });

  it('takes the local provider in production only with ALLOW_TEST_PAYMENTS=1 (a staging shop)', () => {
    const config = loadConfig({ ...PRODUCTION, PAYMENT_PROVIDER: 'local', STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '', ALLOW_TEST_PAYMENTS: '1' });
    expect(config.PAYMENT_PROVIDER).toBe('local');
    expect(takesTestPayments(config)).toBe(true);
    expect(takesTestPayments(loadConfig(PRODUCTION))).toBe(false);
  });
});

describe('loadConfig: the LOCAL_REFUND_FAILURES test switch (decision 034)', () => {
  it('is refused in production, even on a staging shop with fake payments, and taken elsewhere', () => {
    const refusal = '  LOCAL_REFUND_FAILURES: a test switch that makes card refunds fail; it is refused when NODE_ENV=production.';
    expect(configError({ ...PRODUCTION, LOCAL_REFUND_FAILURES: '1' }).message).toContain(refusal);
    const staging = { ...PRODUCTION, PAYMENT_PROVIDER: 'local', STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '', ALLOW_TEST_PAYMENTS: '1' };
    expect(configError({ ...staging, LOCAL_REFUND_FAILURES: '3' }).message).toContain(refusal);
    expect(loadConfig({ ...staging, LOCAL_REFUND_FAILURES: '0' }).LOCAL_REFUND_FAILURES).toBe(0);
    expect(loadConfig(PRODUCTION).LOCAL_REFUND_FAILURES).toBe(0);
    expect(loadConfig({ AUTH_SECRET: SECRET, NODE_ENV: 'test', LOCAL_REFUND_FAILURES: '2' }).LOCAL_REFUND_FAILURES).toBe(2);
  });
});

describe('loadConfig: the development AUTH_SECRET', () => {
  it('is made once in DATA_DIR and reused, so sessions survive a restart', () => {
    const dataDir = makeTempDir('config-test');
    temp.push(dataDir);
    const first = loadConfig({ DATA_DIR: dataDir.dir });
    expect(first.AUTH_SECRET.length).toBeGreaterThanOrEqual(32);
    const file = path.join(dataDir.dir, 'auth-secret');
    expect(fs.readFileSync(file, 'utf8')).toBe(first.AUTH_SECRET);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
    expect(loadConfig({ DATA_DIR: dataDir.dir }).AUTH_SECRET).toBe(first.AUTH_SECRET);
  });
});

describe('loadConfig for the CLI ({ serving: false })', () => {
  it('needs none of the serving settings in production and makes no secret file', () => {
    const dataDir = makeTempDir('config-cli');
    temp.push(dataDir);
    const config = loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://shop@db.example/shop', DATA_DIR: dataDir.dir }, { serving: false });
    expect(config).toMatchObject({ isProduction: true, AUTH_SECRET: '', DATABASE_URL: 'postgres://shop@db.example/shop' });
    expect(config.PUBLIC_URL).toBeUndefined();
    expect(fs.existsSync(path.join(dataDir.dir, 'auth-secret'))).toBe(false);
    // The server's load of the same settings still refuses.
    expect(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://shop@db.example/shop', DATA_DIR: dataDir.dir })).toThrow(ConfigError);
  });

  it('reads the secret an embedded shop keeps in DATA_DIR, and prefers the environment’s', () => {
    const dataDir = makeTempDir('config-cli');
    temp.push(dataDir);
    const kept = loadConfig({ DATA_DIR: dataDir.dir }).AUTH_SECRET;
    expect(loadConfig({ DATA_DIR: dataDir.dir }, { serving: false }).AUTH_SECRET).toBe(kept);
    expect(loadConfig({ DATA_DIR: dataDir.dir, AUTH_SECRET: SECRET }, { serving: false }).AUTH_SECRET).toBe(SECRET);
  });
});
