import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { saveDevMail, suppressAddress } from './mail.service.ts';
import { hardBounce, SMTP_TIMEOUTS, type Mail } from './mailer.ts';

/**
 * What became of one bulk mail (announcements, decision 079):
 * - `sent`: the SMTP server accepted it;
 * - `bounced`: it refused the address for good (recorded in mail_suppression);
 * - `failed`: it answered with a refusal (the mail was not taken);
 * - `retry`: no connection could be made (nothing reached the server: it may go again);
 * - `unknown`: the connection broke while the mail was being handed over (it may have arrived).
 */
export type BulkOutcome = { state: 'sent' } | { state: 'bounced' | 'failed' | 'unknown' | 'retry'; detail: string };

export interface BulkMailer {
  send(mail: Mail): Promise<BulkOutcome>;
  close(): void;
}

/** nodemailer's codes for a connection that was never made: nothing was handed over. */
const NOT_CONNECTED = new Set(['ECONNECTION', 'EDNS']);

/** Sorts a send's error into the outcomes above. */
export function bulkOutcomeOf(error: unknown): Exclude<BulkOutcome, { state: 'sent' }> {
  const { code, responseCode, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: string; responseCode?: number; message?: string };
  const detail = String(message ?? error).slice(0, 500);
  if (hardBounce(error)) return { state: 'bounced', detail };
  if (typeof responseCode === 'number' && responseCode >= 400) return { state: 'failed', detail };
  if (code && NOT_CONNECTED.has(code)) return { state: 'retry', detail };
  return { state: 'unknown', detail };
}

/**
 * The announcements' own SMTP pool (decision 079): the same SMTP_URL and pace settings as the
 * transactional mailer (MAIL_CONCURRENCY connections, MAIL_RATE_PER_SECOND a second per process),
 * but its own connections and queue, so a receipt or a password mail never waits behind an
 * announcement. Without SMTP_URL, the dev mailbox.
 */
export function createBulkMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'MAIL_CONCURRENCY' | 'MAIL_RATE_PER_SECOND'>, db: Db): BulkMailer {
  if (!config.SMTP_URL) {
    return {
      send: async (mail) => {
        await saveDevMail(db, mail);
        return { state: 'sent' };
      },
      close: () => undefined,
    };
  }
  const transport = nodemailer.createTransport({
    url: config.SMTP_URL,
    ...SMTP_TIMEOUTS,
    pool: true,
    maxConnections: config.MAIL_CONCURRENCY,
    rateDelta: 1000,
    rateLimit: config.MAIL_RATE_PER_SECOND,
  });
  return {
    async send(mail) {
      try {
        await transport.sendMail({ from: config.MAIL_FROM, ...mail });
        return { state: 'sent' };
      } catch (error) {
        const outcome = bulkOutcomeOf(error);
        if (outcome.state === 'bounced') await suppressAddress(db, mail.to, hardBounce(error) ?? outcome.detail);
        return outcome;
      }
    },
    close: () => transport.close(),
  };
}
