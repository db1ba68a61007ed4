import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';

export const ANNOUNCEMENT_STATUS_VALUES = ['draft', 'sending', 'paused', 'cancelled', 'sent'] as const;
/**
 * A recipient's state (decision 079): `queued` waits; `sending` is claimed (committed) before the
 * mail is handed to SMTP; then `sent`, `failed` (the SMTP server refused it), `bounced` (a
 * permanent refusal of the address) or `unknown` (a crash, or a lost connection, left its fate
 * unknown: listed in the report, never sent again). `skipped`: not sent (consent withdrawn or the
 * address suppressed before its turn, or the announcement cancelled).
 */
export const RECIPIENT_STATE_VALUES = ['queued', 'sending', 'sent', 'failed', 'bounced', 'unknown', 'skipped'] as const;

/**
 * An announcement the label writes in the console (issue 37 part 3, decision 079), sent to the
 * consenting followers of the label or of chosen artists. `linkPath` and `linkTitle` are the
 * release, product or drop it links to, resolved when saved.
 */
export const announcements = pgTable(
  'announcement',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    /** The shop's own image path (an upload checked by its bytes), or ''. */
    image: text('image').notNull().default(''),
    linkKind: text('link_kind', { enum: ['release', 'product', 'drop'] }),
    linkId: text('link_id'),
    linkTitle: text('link_title').notNull().default(''),
    linkPath: text('link_path').notNull().default(''),
    /** The audience: the label's followers (and its news subscribers without an account), and/or these artists' followers. */
    toLabel: boolean('to_label').notNull().default(true),
    artistIds: integer('artist_ids')
      .array()
      .notNull()
      .default(sql`'{}'::integer[]`),
    status: text('status', { enum: ANNOUNCEMENT_STATUS_VALUES }).notNull().default('draft'),
    /** An automatic announcement's event (`drop-scheduled:<id>`, ...): one announcement per event, whatever repeats it. Null: written by the label. */
    automaticKey: text('automatic_key'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [index('announcement_status_idx').on(table.status), uniqueIndex('announcement_automatic_key_idx').on(table.automaticKey)],
);

/**
 * One row per recipient of an announcement (decision 079): the primary key makes a fan at most
 * one mail per announcement, across instances. A sender claims rows (`sending`, with its
 * session as `claimedBy`, committed) before it hands them to SMTP.
 */
export const announcementRecipients = pgTable(
  'announcement_recipient',
  {
    announcementId: bigint('announcement_id', { mode: 'number' })
      .notNull()
      .references(() => announcements.id, { onDelete: 'cascade' }),
    /** Normalised (trimmed, lowercase), as consent keeps it. */
    email: text('email').notNull(),
    seq: bigint('seq', { mode: 'number' }).notNull().generatedAlwaysAsIdentity(),
    name: text('name').notNull().default(''),
    state: text('state', { enum: RECIPIENT_STATE_VALUES }).notNull().default('queued'),
    claimedBy: text('claimed_by'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    detail: text('detail').notNull().default(''),
  },
  (table) => [
    primaryKey({ columns: [table.announcementId, table.email] }),
    index('announcement_recipient_state_idx').on(table.announcementId, table.state, table.seq),
    // The claims in flight, for the sweep that finds those of a dead sender.
    index('announcement_recipient_sending_idx')
      .on(table.claimedBy)
      .where(sql`${table.state} = 'sending'`),
    check('announcement_recipient_claimed', sql`${table.state} <> 'sending' OR ${table.claimedBy} IS NOT NULL`),
  ],
);

export const AUTOMATIC_KINDS = ['release-live', 'preorder-open', 'drop-scheduled'] as const;

/** The automatic announcements the label turned on (decision 079): a row per kind; absent is off. */
export const announcementAutomations = pgTable('announcement_automation', {
  kind: text('kind', { enum: AUTOMATIC_KINDS }).primaryKey(),
  enabled: boolean('enabled').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
