import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAuthClient } from '@storefront/sdk/auth.ts';
import { createFunctionsClient } from '@storefront/sdk/callable.ts';
import { startTestApp, type TestApp } from '../test/app.ts';
import { authLink, startSmtpPeer } from '../test/smtp.ts';
import { createAccount } from './accounts/accounts.service.ts';
import { createLogger, prettyLine, redactUrl, requestLoggerFactory, runInRequestScope } from './logger.ts';

describe('redactUrl', () => {
  it.each([
    ['/api/auth/reset-password/abcDEF123?callbackURL=%2Freset-password', '/api/auth/reset-password/[redacted]?callbackURL=%2Freset-password'],
    ['/reset-password?token=abcDEF123', '/reset-password?token=[redacted]'],
    ['/api/auth/verify-email?token=eyJhbGciOi.x.y&callbackURL=%2Flogin', '/api/auth/verify-email?token=[redacted]&callbackURL=%2Flogin'],
    ['/v0/b/shop/o/products%2Fa.jpg?alt=media&token=0b9f-77', '/v0/b/shop/o/products%2Fa.jpg?alt=media&token=[redacted]'],
    ['/img/shop/products%2Fa.jpg?w=320&token=0b9f-77', '/img/shop/products%2Fa.jpg?w=320&token=[redacted]'],
    ['/oidc/callback?code=secret-code&state=s', '/oidc/callback?code=[redacted]&state=s'],
    ['/shop?page=2', '/shop?page=2'],
    ['/healthz', '/healthz'],
  ])('%s -> %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});

describe('prettyLine (development)', () => {
  it('makes a JSON line one readable line with its fields', () => {
    const line = prettyLine(JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 23, 12, 0, 1, 234), msg: 'request', method: 'GET', url: '/shop', status: 200 }));
    expect(line).toBe('12:00:01.234 INFO  request  method=GET url=/shop status=200\n');
  });
});

describe('request logs of a password reset (issue 13)', () => {
  let shop: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
  let baseUrl: string;
  const lines: string[] = [];

  beforeAll(async () => {
    smtp = await startSmtpPeer();
    // The production format (JSON lines), captured.
    const logger = createLogger({ LOG_LEVEL: 'info', isProduction: true }, { write: (line: string) => void lines.push(line) });
    shop = await startTestApp({
      config: { env: { SMTP_URL: smtp.url, LOG_LEVEL: 'info' } },
      build: { logger: undefined, loggerInstance: logger },
      seed: ({ db, config }) =>
        createAccount(
          db,
          config,
          { email: 'logged@example.org', password: 'correct horse', confirmPassword: 'correct horse', name: 'Logged Fan', username: 'LoggedFan', acceptedTerms: true },
          { emailVerified: true },
        ),
    });
    ({ baseUrl } = shop);
  });

  afterAll(async () => {
    await shop?.close();
    await smtp?.close();
  });

  it('has one JSON line per request and never the reset or download token', async () => {
    const functions = createFunctionsClient({ baseUrl });
    const auth = createAuthClient({ baseUrl, functions });
    const before = smtp.mailsTo('logged@example.org').length;
    await auth.requestPasswordReset('logged@example.org');
    const link = authLink(await smtp.waitForMail('logged@example.org', before));
    const opened = await fetch(link, { redirect: 'manual' });
    const location = new URL(opened.headers.get('location')!, baseUrl);
    const token = location.searchParams.get('token')!;
    expect(token.length).toBeGreaterThan(10);
    expect(link).toContain(token);
    // The web app's page for it, then the reset itself.
    await (await fetch(`${baseUrl}${location.pathname}${location.search}`)).text();
    await auth.resetPassword(token, 'new horse battery');
    await (await fetch(`${baseUrl}/v0/b/shop/o/products%2Fa.jpg?alt=media&token=download-secret-77`)).text();

    const entries = lines.map((line) => JSON.parse(line) as { msg: string; url?: string; status?: number; method?: string });
    const requests = entries.filter((entry) => entry.msg === 'request');
    // One line per request: the reset request, the mailed link, the page, the reset, the download.
    expect(requests.map((entry) => `${entry.method} ${entry.url?.split('?')[0]}`)).toEqual(
      expect.arrayContaining([
        'POST /api/auth/request-password-reset',
        `GET /api/auth/reset-password/[redacted]`,
        'GET /reset-password',
        'POST /api/auth/reset-password',
        'GET /v0/b/shop/o/products%2Fa.jpg',
      ]),
    );
    expect(requests.every((entry) => typeof entry.status === 'number')).toBe(true);
    expect(entries.some((entry) => entry.msg === 'incoming request' || entry.msg === 'request completed')).toBe(false);
    const all = lines.join('');
    expect(all).not.toContain(token);
    expect(all).not.toContain('download-secret-77');
    expect(all).toContain('token=[redacted]');
  });
});

describe('the request scope (issue 25 item 6)', () => {
  it('puts the request id on every line logged inside it, the root logger too, and never twice', () => {
    const lines: string[] = [];
    const logger = createLogger({ LOG_LEVEL: 'info', isProduction: true }, { write: (line: string) => void lines.push(line) });
    logger.info('outside');
    runInRequestScope('req-1', () => {
      logger.info('root logger, inside');
      logger.child({ requestId: 'req-1' }).info('request logger, inside');
    });
    const parsed = lines.map((line) => ({ text: line, entry: JSON.parse(line) as { msg: string; requestId?: string } }));
    expect(parsed.map(({ entry }) => [entry.msg, entry.requestId])).toEqual([
      ['outside', undefined],
      ['root logger, inside', 'req-1'],
      ['request logger, inside', 'req-1'],
    ]);
    // The request logger's own binding, not a second key.
    expect(parsed[2]!.text.match(/"requestId"/g)).toHaveLength(1);
  });
});

describe('the request logger (issue 38: made lazily)', () => {
  it('writes the lines a child logger would, with the request id once, nothing below the level, and is made only to write one', () => {
    const lines: string[] = [];
    const root = createLogger({ LOG_LEVEL: 'info', isProduction: true }, { write: (line: string) => void lines.push(line) });
    const children = vi.spyOn(root, 'child');
    const log = requestLoggerFactory(root, { requestId: 'req-9' }, {});
    expect(log.level).toBe('info');
    expect(log.isLevelEnabled('debug')).toBe(false);
    log.debug('not written');
    // A request that writes nothing costs no child logger.
    expect(children).not.toHaveBeenCalled();
    runInRequestScope('req-9', () => log.warn({ figure: 1 }, 'written'));
    expect(children).toHaveBeenCalledTimes(1);
    log.child({ step: 'refund' }).error('from a child');
    const entries = lines.map((line) => ({ text: line, entry: JSON.parse(line) as Record<string, unknown> }));
    expect(entries.map(({ entry }) => [entry.msg, entry.requestId, entry.level])).toEqual([
      ['written', 'req-9', 40],
      ['from a child', 'req-9', 50],
    ]);
    expect(entries[0]!.entry.figure).toBe(1);
    expect(entries[1]!.entry.step).toBe('refund');
    expect(entries[0]!.text.match(/"requestId"/g)).toHaveLength(1);
  });
});
