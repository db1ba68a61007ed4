import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../src/accounts/accounts.service.ts';
import { connectDatabase, type Database } from '../../src/db/client.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.ts';
import { runMigrations } from '../../src/db/migrate.ts';
import { testConfig } from '../database.ts';
import { seedFollowers } from '../fans.ts';
import { startSmtpPeer } from '../smtp.ts';
import { newTestDataDir } from '../temp-data-dirs.ts';
import { signInAll, type Shopper } from './money-load.ts';
import { poll, spawnServer, stopAllServers, waitUntilReady, type ServerProcess } from './processes.ts';

/**
 * Announcements across two instances with a crash (issue 37 part 3, "Done when", decision 079):
 * two server processes on one Postgres send one announcement to N consenting followers through a
 * real SMTP peer (each mail accepted after 15 ms, as across a network); one instance is killed
 * (SIGKILL) while it is handing mails to SMTP. The peer receives no fan twice; every fan it did
 * not receive is `unknown` in the report, and there are no more of those than the killed instance
 * had in flight (MAIL_CONCURRENCY). Then a fan unsubscribes with one click (a POST with no
 * cookie), the killed instance comes back, and the next announcement skips that fan and reaches
 * every other one once.
 */
const N = 2000;
const IN_FLIGHT = 5;
const dataDir = newTestDataDir('announce-processes');
let cluster: EmbeddedDatabase;
let database: Database;
let smtp: Awaited<ReturnType<typeof startSmtpPeer>>;
let servers: ServerProcess[];
let settings: Record<string, string>;
let ports: number[];
let label: Shopper;
let fans: string[];

beforeAll(async () => {
  cluster = await startEmbeddedPostgres({ dataDir, ephemeral: true });
  database = connectDatabase(cluster.connectionString, { max: 4 });
  await runMigrations(database.pool);
  await createAccount(
    database.db,
    testConfig(),
    { email: 'label@example.org', username: 'label', name: 'Label', password: 'pass words', confirmPassword: 'pass words', acceptedTerms: true },
    { emailVerified: true, role: 'admin', allowReservedUsername: true },
  );
  fans = await seedFollowers(database.pool, { prefix: 'fan', count: N });
  smtp = await startSmtpPeer({ delayMs: 15 });
  ports = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${ports[0]}`;
  settings = {
    NODE_ENV: 'production',
    PAYMENT_PROVIDER: 'local',
    ALLOW_TEST_PAYMENTS: '1',
    DATABASE_URL: cluster.connectionString,
    PUBLIC_URL: publicUrl,
    AUTH_SECRET: 'announce-processes-secret-'.repeat(3),
    SMTP_URL: smtp.url,
    TRUSTED_PROXIES: '127.0.0.1',
    MAIL_CONCURRENCY: String(IN_FLIGHT),
    ANNOUNCE_ROUND_MS: '300',
  };
  servers = await Promise.all(ports.map((port) => spawnServer(settings, port)));
  await Promise.all(servers.map(waitUntilReady));
  label = (await signInAll(servers[0]!.base, publicUrl, ['label@example.org']))[0]!;
}, 240_000);

afterAll(async () => {
  await stopAllServers();
  await smtp?.close();
  await database?.close();
  await cluster?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

async function call<T>(server: ServerProcess, name: string, data: unknown): Promise<T> {
  const response = await fetch(`${server.base}/fn/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${label.token}`, 'x-forwarded-for': label.ip },
    body: JSON.stringify({ data }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${name} answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

interface Report {
  status: string;
  counts: { total: number; sent: number; unknown: number; failed: number; queued: number; sending: number };
  unknown: { email: string }[];
}

/** Received mails of one subject, per address. */
function received(subject: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const mail of smtp.mails) if (mail.raw.includes(`Subject: ${subject}`)) for (const to of mail.to) counts.set(to, (counts.get(to) ?? 0) + 1);
  return counts;
}

async function statesOf(id: number): Promise<Map<string, string>> {
  const { rows } = await database.pool.query<{ email: string; state: string }>('SELECT email, state FROM announcement_recipient WHERE announcement_id = $1', [id]);
  return new Map(rows.map((row) => [row.email, row.state]));
}

async function sendToAll(server: ServerProcess, subject: string): Promise<number> {
  const draft = await call<{ id: number }>(server, 'saveAnnouncement', {
    subject,
    body: `${subject}: the new record is out.`,
    image: '',
    link: null,
    toLabel: true,
    artistIds: [],
  });
  await call(server, 'sendAnnouncement', { id: draft.id });
  return draft.id;
}

async function finished(server: ServerProcess, id: number): Promise<Report> {
  return poll(
    'the announcement to finish',
    async () => {
      const report = await call<Report>(server, 'getAnnouncement', { id });
      return report.status === 'sent' ? report : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\n${servers.map((s) => s.output().slice(-3000)).join('\n---\n')}`);
  });
}

describe('announcements across two instances', () => {
  it('one killed mid-send: no fan twice, every fan not received is unknown (no more than were in flight); one-click unsubscribe holds for the next', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const id = await sendToAll(a, 'Crash news');
    // Both instances send: wait until a good part has gone, then kill one while it hands mails to SMTP.
    await poll('a fifth of the mails', async () => (received('Crash news').size >= N / 5 ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });
    const { rows: inFlight } = await database.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM announcement_recipient WHERE announcement_id = $1 AND state = 'sending'`, [
      id,
    ]);
    expect(inFlight[0]!.n).toBeGreaterThan(0);
    a.child.kill('SIGKILL');
    await a.exited;

    const report = await finished(b, id);
    const got = received('Crash news');
    const states = await statesOf(id);
    // No fan twice.
    for (const [to, count] of got) expect(count, to).toBe(1);
    // Every fan not received is unknown; every one marked sent was received.
    const missing = fans.filter((fan) => !got.has(fan));
    for (const fan of missing) expect(states.get(fan), fan).toBe('unknown');
    for (const [fan, state] of states) if (state === 'sent') expect(got.has(fan), fan).toBe(true);
    // No more unknown than the killed instance had in flight; the report lists each.
    expect(report.counts.unknown).toBeLessThanOrEqual(IN_FLIGHT);
    expect(report.counts.unknown).toBe([...states.values()].filter((state) => state === 'unknown').length);
    expect(report.unknown.map((row) => row.email).sort()).toEqual(
      [...states]
        .filter(([, state]) => state === 'unknown')
        .map(([email]) => email)
        .sort(),
    );
    expect(report.counts.sent + report.counts.unknown).toBe(N);
    expect(got.size).toBeGreaterThanOrEqual(N - report.counts.unknown);

    // One click, no cookie: the fan's consent ends.
    const mail = smtp.mails.find((candidate) => candidate.to.includes('fan7@example.org') && candidate.raw.includes('Subject: Crash news'))!;
    const headers = mail.raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
    const url = /^List-Unsubscribe: <([^>]+)>/im.exec(headers)![1]!;
    const leave = await fetch(url.replace(/^http:\/\/127\.0\.0\.1:\d+/, b.base), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(leave.status).toBe(200);

    // The killed instance comes back; the next announcement goes out through both.
    const again = await spawnServer(settings, ports[0]);
    await waitUntilReady(again);
    const next = await sendToAll(again, 'Next news');
    const second = await finished(b, next);
    const gotNext = received('Next news');
    expect(gotNext.has('fan7@example.org')).toBe(false);
    expect(second.counts).toMatchObject({ total: N - 1, sent: N - 1, unknown: 0 });
    for (const fan of fans) if (fan !== 'fan7@example.org') expect(gotNext.get(fan), fan).toBe(1);
  });
});
