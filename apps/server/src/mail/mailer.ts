import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { saveDevMail } from './mail.service.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export type SendMail = (mail: Mail) => Promise<void>;

/**
 * nodemailer would wait up to 2 minutes to connect and 10 for a silent socket: a send must
 * end well within the mail job's expiry (MAIL_JOB_EXPIRE_SECONDS), or it could go out twice.
 */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/** SMTP when SMTP_URL is set; otherwise the dev mailbox (a table behind /dev/mailbox). */
export function createMailer(config: Config, db: Db): SendMail {
  if (config.SMTP_URL) {
    const transport = nodemailer.createTransport({ url: config.SMTP_URL, ...SMTP_TIMEOUTS });
    return async (mail) => {
      await transport.sendMail({ from: config.MAIL_FROM, ...mail });
    };
  }
  return async (mail) => {
    await saveDevMail(db, mail);
    if (config.NODE_ENV === 'development') {
      const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
      console.log(`[dev mailbox] to ${mail.to}: ${mail.subject}${link ? ` ${link}` : ''}`);
    }
  };
}
