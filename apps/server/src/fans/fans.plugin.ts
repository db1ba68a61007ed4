import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { defineArea } from '../http/area.ts';
import { consentFunctions, type ConsentDeps } from './consent.functions.ts';
import { consentRoutes } from './consent.routes.ts';
import { fanFunctions } from './fans.functions.ts';

/** What app.ts hands the fans area. */
export interface FansOptions extends ConsentDeps {
  config: Config;
  db: Db;
}

/**
 * The fans (issue 37, decision 074): follows of the label and of roster artists, made from the
 * release, product and artist pages, /account and a purchase with its box ticked; and marketing
 * consent, kept apart from orders, with its signed-out confirm and leave pages.
 */
export const fansArea = defineArea('fans', async (app, { config, db, queueMail, emailOf }: FansOptions) => {
  await app.register(consentRoutes, { db, config });
  return { functions: [...fanFunctions(), ...consentFunctions({ queueMail, emailOf })] };
});
