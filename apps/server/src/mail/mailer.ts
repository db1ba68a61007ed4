import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { devMailbox } from '../db/schema/index.ts';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export type SendMail = (mail: Mail) => Promise<void>;

/** SMTP when SMTP_URL is set; otherwise the dev mailbox (a table behind /dev/mailbox). */
export function createMailer(config: Config, db: Db): SendMail {
  if (config.SMTP_URL) {
    const transport = nodemailer.createTransport(config.SMTP_URL);
    return async (mail) => {
      await transport.sendMail({ from: config.MAIL_FROM, ...mail });
    };
  }
  return async (mail) => {
    await db.insert(devMailbox).values(mail);
    if (config.NODE_ENV === 'development') {
      const link = /https?:\/\/\S+/.exec(mail.text)?.[0];
      console.log(`[dev mailbox] to ${mail.to}: ${mail.subject}${link ? ` ${link}` : ''}`);
    }
  };
}
