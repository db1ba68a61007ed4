import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { seedFollowers } from '../../apps/server/test/fans.ts';
import { startAppServer } from '../lib/app-server.ts';
import { ADMIN, callFunction, signIn } from '../lib/client.ts';
import { figure, round, type Figure } from '../lib/figures.ts';

/** The server process's resident memory now and its high-water mark, in MiB (Linux /proc). */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/**
 * Resets the process's resident high-water mark (VmHWM) to its resident memory now (Linux:
 * `5` to /proc/<pid>/clear_refs, allowed on a process of our own), so the kernel's peak counts
 * from the send on, every page it touched, and not the start-up before it. False where it is
 * not allowed: the peak is then the largest of the samples taken every 250 ms.
 */
function resetPeak(pid: number): boolean {
  try {
    fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

interface SendRun {
  fans: number;
  sent: number;
  received: number;
  seconds: number;
  rate: number;
  /** Resident memory just before the send started, MiB. */
  before: number;
  /** The peak resident memory from the send's start to its report saying sent, MiB. */
  peak: number;
  /** Where the peak comes from: the kernel's high-water mark since the send started, or the 250 ms samples. */
  peakFrom: 'VmHWM' | 'samples';
  /** Every 5 s of the send: seconds since it started, resident MiB then, and mails sent. */
  timeline: [number, number, number][];
  counts: Record<string, number>;
}

/**
 * Announcements (issue 37 part 3, decision 079): a server instance sends one announcement to
 * `fans` consenting followers through a local SMTP sink (in the bench process) that accepts
 * every mail at once; then a fresh instance on a fresh database does the same for `largeFans`.
 * Figures: mails a second from the send to the report saying sent (target: at least 50 per
 * instance), and the sending process's peak resident memory at each size with their ratio
 * (target: at most 1.2): whether the sender's memory grows with the audience. Both runs use
 * the same settings: MAIL_CONCURRENCY `concurrency` (the pool's connections and the recipients
 * claimed at a time; the production default is 10, which sends about 100 a second here) and a
 * pace high enough not to be the limit, so the 100,000 are sent in minutes.
 *
 * The memory is the server process's own (the Node process that claims, renders and hands the
 * mails to SMTP; the embedded Postgres runs in processes of its own and is not counted): its
 * resident set, which is what the operating system has to give it (the V8 heap is only part
 * of it, and a heap that grew would show there). Each size gets a fresh process, so both start
 * from the same state.
 */
export async function benchMail(
  options: { fans: number; largeFans: number; concurrency: number },
  log: (line: string) => void,
  resultsDir: string,
): Promise<{ figures: Figure[]; [key: string]: unknown }> {
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

  async function sendTo(fans: number): Promise<SendRun> {
    received = 0;
    const app = await startAppServer(path.join(resultsDir, `mail-server-${fans}.log`), {
      SMTP_URL: `smtp://127.0.0.1:${port}`,
      MAIL_CONCURRENCY: String(options.concurrency),
      MAIL_RATE_PER_SECOND: '10000',
      ANNOUNCE_ROUND_MS: '1000',
    });
    const pool = new pg.Pool({ connectionString: app.databaseUrl, max: 2 });
    try {
      await seedFollowers(pool, { prefix: 'bench-fan-', count: fans });
      log(`mail: ${fans} consenting followers seeded`);
      const token = await signIn(app.base, ADMIN.email, ADMIN.password);
      const draft = await callFunction<{ id: number }>(
        app.base,
        'saveAnnouncement',
        { subject: 'Bench news', body: 'The new record is out.\n\nCome and hear it.', image: '', link: null, toLabel: true, artistIds: [] },
        token,
      );
      const before = memoryOf(app.pid).rss;
      const kernelPeak = resetPeak(app.pid);
      const started = Date.now();
      await callFunction(app.base, 'sendAnnouncement', { id: draft.id }, token);
      let sampled = before;
      let counts: Record<string, number> = {};
      const timeline: [number, number, number][] = [];
      for (let tick = 0; ; tick += 1) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        const rss = memoryOf(app.pid).rss;
        sampled = Math.max(sampled, rss);
        if (tick % 2 === 1) continue;
        const report = await callFunction<{ status: string; counts: Record<string, number> }>(app.base, 'getAnnouncement', { id: draft.id }, token);
        counts = report.counts;
        if (tick % 20 === 0) timeline.push([round((Date.now() - started) / 1000, 0), round(rss, 0), counts.sent ?? 0]);
        if (report.status === 'sent') break;
        if (Date.now() - started > 900_000) throw new Error(`${fans} fans: not sent within 15 minutes: ${JSON.stringify(counts)}`);
      }
      const seconds = (Date.now() - started) / 1000;
      const peak = kernelPeak ? Math.max(memoryOf(app.pid).peak, sampled) : sampled;
      const sent = counts.sent ?? 0;
      const run: SendRun = { fans, sent, received, seconds, rate: sent / seconds, before, peak, peakFrom: kernelPeak ? 'VmHWM' : 'samples', timeline, counts };
      log(
        `mail: ${fans} fans: ${sent} sent in ${round(seconds, 1)} s (${round(run.rate, 0)} a second), ${received} received; ` +
          `resident ${round(before, 0)} MiB before, peak ${round(peak, 0)} MiB (${run.peakFrom}); every 5 s [s, MiB, sent]: ${JSON.stringify(timeline)}`,
      );
      return run;
    } finally {
      await pool.end();
      await app.stop();
    }
  }

  try {
    const small = await sendTo(options.fans);
    const large = await sendTo(options.largeFans);
    const ratio = large.peak / small.peak;
    const delivered = (run: SendRun) => (run.received === run.fans ? 'all' : `${run.received} of ${run.fans}`);
    const peakNote = (run: SendRun) =>
      `${round(run.before, 0)} MiB before the send, +${round(run.peak - run.before, 0)} MiB; from ${run.peakFrom === 'VmHWM' ? 'the kernel high-water mark' : 'samples every 250 ms'}`;
    return {
      figures: [
        figure(
          'mail.rate',
          `mail: announcement mails a second to a local SMTP sink, one instance (${options.fans} fans, MAIL_CONCURRENCY ${options.concurrency})`,
          round(small.rate, 1),
          'mails/s',
          { op: '>=', value: 50 },
        ),
        figure(
          'mail.delivered',
          `mail: mails the sink received, of the fans (${options.fans} and ${options.largeFans})`,
          delivered(small) === 'all' && delivered(large) === 'all' ? 'all' : `${delivered(small)}; ${delivered(large)}`,
          '',
          {
            op: '=',
            value: 'all',
          },
        ),
        figure('mail.peak_rss', `mail: the sending process's peak resident memory (${options.fans} fans)`, round(small.peak, 0), 'MiB', undefined, peakNote(small)),
        figure(
          'mail.peak_rss_large',
          `mail: the sending process's peak resident memory (${options.largeFans} fans, ${round(large.rate, 0)} mails/s)`,
          round(large.peak, 0),
          'MiB',
          undefined,
          peakNote(large),
        ),
        figure('mail.peak_rss_growth', `mail: peak memory at ${options.largeFans} fans over that at ${options.fans}`, round(ratio, 2), 'x', { op: '<=', value: 1.2 }),
      ],
      runs: [small, large],
    };
  } finally {
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
}
