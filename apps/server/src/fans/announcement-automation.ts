import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { automationOn, createAutomaticDraft, type AutomaticDraft, type AutomaticKind } from './announcement-automation.service.ts';
import { startSending } from './announcements.service.ts';

export type AutomaticEvent = AutomaticDraft & { kind: AutomaticKind };

/**
 * An event that may send an automatic announcement (decision 079): when the label turned its kind
 * on, the announcement is written (once per event: its key) and sent like one the label sends;
 * the senders pick it up on their next round. With no consenting follower it stays a draft.
 * Answers the announcement's id, or null when nothing was sent.
 */
export async function announceAutomatically(db: Db, event: AutomaticEvent): Promise<number | null> {
  if (!(await automationOn(db, event.kind))) return null;
  const id = await createAutomaticDraft(db, event);
  if (id === null) return null;
  try {
    await startSending(db, id);
  } catch (error) {
    if (error instanceof AppError) return null;
    throw error;
  }
  return id;
}
