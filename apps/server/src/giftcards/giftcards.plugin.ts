import { type Config, publicUrl } from '../config.ts';
import { defineArea } from '../http/area.ts';
import { createMailer } from '../mail/mailer.ts';
import { MAIL_JOB_EXPIRE_SECONDS } from '../mail/mail.jobs.ts';
import { giftCardFunctions } from './giftcards.functions.ts';
import { GIFT_CARD_MAIL_QUEUE, sendGiftCardMail } from './giftcards.service.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { Db } from '../db/client.ts';

/** What app.ts hands the giftcards area. */
export interface GiftCardsOptions {
  config: Config;
  db: Db;
  jobs: JobQueue;
}

/**
 * Gift cards (issue 27, decision 053): the label's gift card products, the recipient's email
 * (its own job: the code is derived when sending, so no queue row ever holds it) and redemption.
 */
export const giftCardsArea = defineArea('giftcards', async (app, { config, db, jobs }: GiftCardsOptions) => {
  const send = createMailer(config, db);
  app.addHook('onClose', () => send.close());
  const deps = { db, secrets: [config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS], send, publicUrl: publicUrl(config) };
  await jobs.updateQueue(GIFT_CARD_MAIL_QUEUE, { expireInSeconds: MAIL_JOB_EXPIRE_SECONDS });
  await jobs.work<{ giftCardId: string }>(GIFT_CARD_MAIL_QUEUE, (job) => sendGiftCardMail(deps, job.giftCardId));
  return { functions: giftCardFunctions(jobs) };
});
