import { type Config, shopOrigin } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { Tx } from '../db/transaction.ts';
import { defineArea } from '../http/area.ts';
import type { PublicPages } from '../web/public-pages.ts';
import { rosterFunctions } from './roster.functions.ts';
import { addRosterPages } from './roster.pages.ts';

/** What app.ts hands the roster area. */
export interface RosterOptions {
  config: Config;
  db: Db;
  /** The artist pages' heads and sitemap.xml's addresses (decision 070). */
  pages: PublicPages;
  /** A merge moves what other areas keep of the merged artist to the one kept: fans' follows (decision 074), royalties' party (decision 075); roster imports neither. */
  alsoMove: (tx: Tx, from: number, into: number) => Promise<void>;
}

/**
 * The label's roster (issue 36 part 1, decision 070): artists as the label's own records,
 * credited on releases, tracks and products; their public pages and the console's Roster tab.
 */
export const rosterArea = defineArea('roster', async (_app, { db, config, pages, alsoMove }: RosterOptions) => {
  addRosterPages(pages, db, shopOrigin(config));
  return { functions: rosterFunctions({ alsoMove }) };
});
