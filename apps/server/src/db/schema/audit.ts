import { bigserial, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Every admin action (decision 031): who, when, what, on which object, and the object
 * before and after. Written in the transaction of the action itself, so an action is
 * recorded exactly when it happened. `actor_id` keeps no foreign key: the record outlives
 * the account. `actor_label` names the actor as it was (an email, or `cli`).
 */
export const adminAudit = pgTable(
  'admin_audit',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    actorId: text('actor_id'),
    actorLabel: text('actor_label').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    before: jsonb('before'),
    after: jsonb('after'),
  },
  (table) => [index('admin_audit_newest_idx').on(table.id.desc())],
);
