import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { isSuppressed, saveDevMail, suppressAddress } from './mail.service.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, e.g. RFC 8058's List-Unsubscribe on marketing mail (decision 074). */
  headers?: Record<string, string>;
}

export type SendMail = (mail: Mail) => Promise<void>;

/** Marketing mail is what carries RFC 8058's List-Unsubscribe (decision 074); nothing else does. */
export const isMarketing = (mail: Mail) => mail.headers?.['List-Unsubscribe'] !== undefined;

/**
 * A hard bounce (issue 37 part 2): the SMTP server refused the recipient for good (a 5xx answer
 * to RCPT TO, nodemailer's EENVELOPE), as its answer; undefined for anything a retry may cure
 * (a 4xx, a timeout, a connection refused).
 */
export function hardBounce(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, responseCode, response } = error as { code?: string; responseCode?: number; response?: string };
  if (code !== 'EENVELOPE' || responseCode === undefined || responseCode < 500 || responseCode > 599) return undefined;
  return response ?? `SMTP ${responseCode}`;
}

/** A mailer that holds connections: close it when the app closes. */
export type Mailer = SendMail & { close(): void };

/**
 * nodemailer would wait up to 2 minutes to connect and 10 for a silent socket: a send must
 * end well within the mail job's expiry (MAIL_JOB_EXPIRE_SECONDS), or it could go out twice.
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/**
 * SMTP when SMTP_URL is set; otherwise the dev mailbox (a table behind /dev/mailbox). SMTP is
 * a pool of MAIL_CONCURRENCY connections kept open between mails, paced by nodemailer's own
 * limit of MAIL_RATE_PER_SECOND messages a second per process (issue 40 item 20: one
 * connection per mail, one mail at a time, sent about 2 a second).
 */
export function createMailer(config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'NODE_ENV' | 'MAIL_CONCURRENCY' | 'MAIL_RATE_PER_SECOND'>, db: Db): Mailer {
  if (config.SMTP_URL) {
    const transport = nodemailer.createTransport({
      url: config.SMTP_URL,
      ...SMTP_TIMEOUTS,
      pool: true,
      maxConnections: config.MAIL_CONCURRENCY,
      rateDelta: 1000,
      rateLimit: config.MAIL_RATE_PER_SECOND,
    });
    const send: SendMail = async (mail) => {
      // Marketing mail (it carries List-Unsubscribe, decision 074) skips a hard-bounced address.
      const marketing = isMarketing(mail);
      if (marketing && (await isSuppressed(db, mail.to))) return;
      try {
        await transport.sendMail({ from: config.MAIL_FROM, ...mail });
      } catch (error) {
        const refusal = hardBounce(error);
        if (!refusal) throw error;
        await suppressAddress(db, mail.to, refusal);
        // Marketing to a refused address is done with; other mail keeps its retries and its error.
        if (!marketing) throw error;
      }
    };
    return Object.assign(send, { close: () => transport.close() });
  }
  const toMailbox: SendMail = async (mail) => {
    await saveDevMail(db, mail);
    if (config.NODE_ENV === 'development') {
      const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
      console.log(`[dev mailbox] to ${mail.to}: ${mail.subject}${link ? ` ${link}` : ''}`);
    }
  };
  return Object.assign(toMailbox, { close: () => undefined });
}
