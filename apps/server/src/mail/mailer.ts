import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { saveDevMail } from './mail.service.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers, e.g. RFC 8058's List-Unsubscribe on marketing mail (decision 074). */
  headers?: Record<string, string>;
}

export type SendMail = (mail: Mail) => Promise<void>;

/** A mailer that holds connections: close it when the app closes. */
export type Mailer = SendMail & { close(): void };

/**
 * nodemailer would wait up to 2 minutes to connect and 10 for a silent socket: a send must
 * end well within the mail job's expiry (MAIL_JOB_EXPIRE_SECONDS), or it could go out twice.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

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
      await transport.sendMail({ from: config.MAIL_FROM, ...mail });
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
