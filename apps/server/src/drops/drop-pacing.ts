import type { LiveEvent } from '../live/live.publish.ts';

/**
 * How often each open drop page hears "now serving" (issue 35, decision 066 amended in session
 * 14). A batch's event went to every open page: 20,000 streams a batch, about one batch a second,
 * is 20,000 deliveries a second through the instances, the proxy and the fans' browsers, which
 * the bench's quiet 20,000-fan run measured as the drop's bottleneck (p50 0.9 s, p99 5.1 s from
 * a batch's commit to a fan; the whole two-core machine busy). A fan far back gains nothing from
 * each step: its page computes its place from the number it hears, and a place 5,000 back changes
 * its estimate, not its next move. So:
 * - a change of the drop's status (the start with its revealed seed, sold out, closed,
 *   cancelled, postponed) goes to every page at once;
 * - a fan within `nearPlaces` of the front hears every batch, so the batch that admits it
 *   always reaches it (its place is at or below the new "now serving");
 * - a fan further back hears one batch in each `farEveryMs`, each page in its own phase so the
 *   deliveries spread over the interval instead of arriving together;
 * - a page whose place this instance does not know (signed out, joined after the places were
 *   read, or before they are) hears every batch, as before.
 * Places are read once per drop and instance when the drop is live (one query of entry numbers
 * and places), and again every `refreshMs` for late arrivals.
 */
export interface DropPacingOptions {
  nearPlaces: number;
  farEveryMs: number;
  refreshMs: number;
  /** The places of a live drop's entries, by account (null: none yet). */
  placesOf: (dropId: string) => Promise<Map<string, number>>;
  now?: () => number;
}

export const DROP_PACING = { nearPlaces: 1000, farEveryMs: 5000, refreshMs: 30_000 } as const;

/** A filter per open stream: does this event go to this page now? */
export type StreamPacer = (event: LiveEvent) => boolean;

export function createDropPacing(options: DropPacingOptions): { forStream(userId: string | null): StreamPacer | undefined } {
  const now = options.now ?? Date.now;
  const places = new Map<string, { places: Map<string, number> | null; readAt: number; reading: boolean }>();
  const lastStatus = new Map<string, string | undefined>();
  const forEveryone = new WeakMap<LiveEvent, boolean>();

  /** Whether the event changes its drop's status: decided once per event, for every stream alike. */
  function changesStatus(event: LiveEvent): boolean {
    const known = forEveryone.get(event);
    if (known !== undefined) return known;
    const dropId = event.id!;
    const changed = !lastStatus.has(dropId) || lastStatus.get(dropId) !== event.status || event.status !== 'live';
    lastStatus.set(dropId, event.status);
    if (event.status !== 'live') places.delete(dropId);
    forEveryone.set(event, changed);
    return changed;
  }

  function placeOf(dropId: string, userId: string): number | undefined {
    const known = places.get(dropId);
    const time = now();
    if (!known || (!known.reading && time - known.readAt >= options.refreshMs)) {
      const entry = known ?? { places: null, readAt: time, reading: true };
      entry.reading = true;
      places.set(dropId, entry);
      options.placesOf(dropId).then(
        (read) => {
          entry.places = read;
          entry.readAt = now();
          entry.reading = false;
        },
        () => {
          // Not read: every page hears every batch until the next try.
          entry.readAt = now();
          entry.reading = false;
        },
      );
    }
    return known?.places?.get(userId);
  }

  return {
    forStream(userId) {
      if (!userId) return undefined;
      // Each page's own phase in the interval, so far pages do not all hear the same batch.
      const phase = Math.floor(Math.random() * options.farEveryMs);
      let lastSlot = -1;
      return (event) => {
        if (event.topic !== 'drop' || !event.id) return true;
        const changed = changesStatus(event);
        // Read from the start on (the places are written with it), so they are known by the first batch.
        const place = event.status === 'live' ? placeOf(event.id, userId) : undefined;
        if (changed) return true;
        if (place === undefined || place - (event.nowServing ?? 0) <= options.nearPlaces) return true;
        const slot = Math.floor((now() + phase) / options.farEveryMs);
        if (slot === lastSlot) return false;
        lastSlot = slot;
        return true;
      };
    },
  };
}
