import { processedEvents } from '../db/schema/index.ts';
import type { Tx } from '../db/transaction.ts';

/**
 * Records a verified provider event by its id in the transaction that applies it: false when it
 * was recorded before (a redelivery, or the same event twice at once), so each event changes
 * things once. Checkout events (decision 007) and refund events (decisions 028, 034) use it.
 */
export async function recordProviderEventOnce(tx: Tx, event: { provider: string; eventId: string; type: string }): Promise<boolean> {
  const recorded = await tx.insert(processedEvents).values(event).onConflictDoNothing().returning({ eventId: processedEvents.eventId });
  return recorded.length > 0;
}
