import { randomInt } from 'node:crypto';
import pg from 'pg';
import type { Db } from '../db/client.ts';
import type { BulkMailer } from '../mail/bulk-mailer.ts';
import { suppressedAmong } from '../mail/mail.service.ts';
import { warnCleanup } from '../cleanup.ts';
import { announcementMail } from './announcement.mail.ts';
import {
  announcementsSending,
  claimRecipients,
  finishIfDone,
  recordOutcomes,
  SENDER_LOCK_CLASS,
  sweepOrphanedClaims,
  type AnnouncementRow,
  type Outcome,
} from './announcements.service.ts';

export interface SenderDeps {
  db: Db;
  /** How to open the sender's own session (the pool's settings). */
  connection: pg.ClientConfig;
  mailer: BulkMailer;
  origin: string;
  secret: string;
  /** Recipients claimed and handed to SMTP at once (MAIL_CONCURRENCY): at most this many are in flight. */
  batch: number;
  /** How often this instance looks for announcements to send besides being woken (ANNOUNCE_ROUND_MS). */
  roundMs: number;
  onError: (error: unknown) => void;
}

export interface AnnouncementSender {
  /** Looks for work now (an announcement was sent or resumed on this instance). */
  wake(): void;
  /** Finishes the sends in flight, records them, and ends the session. */
  stop(): Promise<void>;
}

/**
 * The announcements' sender (decision 079), one per instance, apart from the transactional mail
 * queue and its SMTP pool. Each round it first marks the claims of dead senders `unknown`, then,
 * per sending announcement, claims `batch` recipients (committed), hands them to SMTP at once,
 * records each outcome, and claims the next few, until none is left or the announcement is
 * paused or cancelled. Every instance does the same; SKIP LOCKED splits the rows between them.
 *
 * The sender's session: a connection of its own holding an advisory lock under a random key
 * (SENDER_LOCK_CLASS, key) for as long as the process lives. Claims name the key; a claim whose
 * key no session holds belongs to a sender that died with it in flight.
 */
export function startAnnouncementSender(deps: SenderDeps): AnnouncementSender {
  const { db, mailer } = deps;
  let session: { client: pg.Client; key: string } | undefined;
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;

  const dropSession = (client: pg.Client) => {
    if (session?.client === client) session = undefined;
    void client.end().catch(warnCleanup('closing the announcement sender session'));
  };

  async function ensureSession(): Promise<string> {
    if (session) return session.key;
    const client = new pg.Client(deps.connection);
    client.on('error', (error) => {
      deps.onError(error);
      dropSession(client);
    });
    client.on('end', () => {
      if (session?.client === client) session = undefined;
    });
    await client.connect();
    for (;;) {
      const key = randomInt(1, 2_147_483_647);
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::int, $2::int) AS ok', [SENDER_LOCK_CLASS, key]);
      if (rows[0]?.ok) {
        session = { client, key: String(key) };
        return session.key;
      }
    }
  }

  async function sendAnnouncement(announcement: AnnouncementRow): Promise<void> {
    const content = { subject: announcement.subject, body: announcement.body, image: announcement.image, linkTitle: announcement.linkTitle, linkPath: announcement.linkPath };
    while (!stopped) {
      const me = await ensureSession();
      const { claimed, touched } = await claimRecipients(db, announcement.id, me, deps.batch);
      if (touched === 0) {
        await finishIfDone(db, announcement.id);
        return;
      }
      const suppressed = await suppressedAmong(
        db,
        claimed.map((recipient) => recipient.email),
      );
      const outcomes = await Promise.all(
        claimed.map(async (recipient): Promise<Outcome> => {
          if (suppressed.has(recipient.email)) return { email: recipient.email, state: 'skipped', detail: 'the address bounced before' };
          const outcome = await deps.mailer
            .send(announcementMail(content, recipient, deps.origin, deps.secret))
            .catch((error: unknown) => ({ state: 'unknown' as const, detail: String(error) }));
          // Nothing reached the SMTP server: the claim goes back to the queue.
          if (outcome.state === 'retry') return { email: recipient.email, state: 'queued', detail: outcome.detail };
          return { email: recipient.email, state: outcome.state, detail: 'detail' in outcome ? outcome.detail : '' };
        }),
      );
      await recordOutcomes(db, announcement.id, me, outcomes);
      // The SMTP server cannot be reached: the next round tries again (pause the announcement to stop).
      if (outcomes.some((outcome) => outcome.state === 'queued')) {
        deps.onError(new Error(`announcement ${announcement.id}: the SMTP server could not be reached; retrying next round`));
        return;
      }
    }
  }

  async function round(): Promise<void> {
    await sweepOrphanedClaims(db);
    for (const announcement of await announcementsSending(db)) {
      if (stopped) return;
      await sendAnnouncement(announcement);
    }
  }

  const run = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = round()
      .catch(deps.onError)
      .finally(() => {
        running = undefined;
        if (again && !stopped) {
          again = false;
          run();
        }
      });
  };

  const timer = setInterval(run, deps.roundMs);
  timer.unref();
  const first = setTimeout(run, 0);
  first.unref();
  return {
    wake: run,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(first);
      await running;
      if (session) {
        const { client } = session;
        session = undefined;
        await client.end().catch(warnCleanup('closing the announcement sender session'));
      }
      mailer.close();
    },
  };
}
