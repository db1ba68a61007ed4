import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { seedFollowers } from '../../apps/server/test/fans.ts';
import { startAppServer } from '../lib/app-server.ts';
import { ADMIN, callFunction, signIn } from '../lib/client.ts';
import { figure, round, type Figure } from '../lib/figures.ts';

/** The server process's resident memory now and at its peak, in MiB (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/**
 * Announcements (issue 37 part 3, decision 079): one instance sends one announcement to `fans`
 * consenting followers through a local SMTP sink that accepts every mail at once; mails a second
 * from the send to the report saying sent (target: at least 50 per instance), and the server's
 * peak resident memory while it sends. The server runs with MAIL_CONCURRENCY 10 and a pace high
 * enough not to be the limit.
 */
export async function benchMail(options: { fans: number }, log: (line: string) => void, resultsDir: string): Promise<{ figures: Figure[]; [key: string]: unknown }> {
  let received = 0;
  const sink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        received += 1;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const address = sink.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const app = await startAppServer(path.join(resultsDir, 'mail-server.log'), {
    SMTP_URL: `smtp://127.0.0.1:${port}`,
    MAIL_CONCURRENCY: '10',
    MAIL_RATE_PER_SECOND: '10000',
    ANNOUNCE_ROUND_MS: '1000',
  });
  const pool = new pg.Pool({ connectionString: app.databaseUrl, max: 2 });
  try {
    await seedFollowers(pool, { prefix: 'bench-fan-', count: options.fans });
    log(`mail: ${options.fans} consenting followers seeded`);
    const token = await signIn(app.base, ADMIN.email, ADMIN.password);
    const draft = await callFunction<{ id: number }>(
      app.base,
      'saveAnnouncement',
      { subject: 'Bench news', body: 'The new record is out.\n\nCome and hear it.', image: '', link: null, toLabel: true, artistIds: [] },
      token,
    );
    const before = memoryOf(app.pid);
    const started = Date.now();
    await callFunction(app.base, 'sendAnnouncement', { id: draft.id }, token);
    let peakRss = before.rss;
    let counts: Record<string, number> = {};
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      peakRss = Math.max(peakRss, memoryOf(app.pid).rss);
      const report = await callFunction<{ status: string; counts: Record<string, number> }>(app.base, 'getAnnouncement', { id: draft.id }, token);
      counts = report.counts;
      if (report.status === 'sent') break;
      if (Date.now() - started > 600_000) throw new Error(`not sent within 10 minutes: ${JSON.stringify(counts)}`);
    }
    const seconds = (Date.now() - started) / 1000;
    const rate = (counts.sent ?? 0) / seconds;
    log(`mail: ${counts.sent} sent in ${round(seconds, 1)} s (${round(rate, 0)} a second), ${received} received by the sink`);
    return {
      figures: [
        figure('mail.rate', `mail: announcement mails a second to a local SMTP sink, one instance (${options.fans} fans)`, round(rate, 1), 'mails/s', { op: '>=', value: 50 }),
        figure('mail.delivered', 'mail: mails the sink received, of the fans', received === options.fans ? 'all' : `${received} of ${options.fans}`, '', { op: '=', value: 'all' }),
        figure(
          'mail.peak_rss',
          `mail: the server's peak resident memory while sending (${options.fans} fans)`,
          round(peakRss, 0),
          'MiB',
          undefined,
          `${round(before.rss, 0)} MiB before`,
        ),
      ],
      counts,
      seconds,
    };
  } finally {
    await pool.end();
    await app.stop();
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
}
