import { DIGITAL_MESSAGES } from '@storefront/domain/digital.ts';
import type { Db } from '../db/client.ts';
import { digitalConflicts } from '../digital/sales.service.ts';
import { AppError } from '../errors.ts';

/**
 * Step "check downloads" of the quote and of both entry flows (issue 39 item 7): a download is
 * bought once. A cart takes one copy of a digital line, not a track beside its own album, and
 * not what the buyer already owns (owning the album owns its tracks). Refused by name before
 * any payment; the cart's own rules (ui/cart-widget) keep a person from getting here.
 */
export async function refuseDigitalConflicts(db: Db, userId: string, lines: { id: string; name: string; qty: number; digital?: boolean; giftCard?: boolean }[]): Promise<void> {
  // A gift card ships nothing too (decision 053) but is no download: several may be bought.
  const digital = lines.filter((line) => line.digital && !line.giftCard);
  if (digital.length === 0) return;
  const nameOf = (productId: string) => digital.find((line) => line.id === productId)?.name ?? productId;
  const copies = new Map<string, number>();
  for (const line of digital) copies.set(line.id, (copies.get(line.id) ?? 0) + line.qty);
  const many = [...copies].filter(([, qty]) => qty > 1).map(([productId]) => DIGITAL_MESSAGES.oneCopy(nameOf(productId)));
  if (many.length > 0) throw new AppError('invalid-argument', many.join(' '));
  const { albumWithTrack, owned } = await digitalConflicts(
    db,
    userId,
    digital.map((line) => line.id),
  );
  if (owned.length > 0) throw new AppError('failed-precondition', owned.map((productId) => DIGITAL_MESSAGES.alreadyOwned(nameOf(productId))).join(' '), { owned });
  if (albumWithTrack.length > 0) {
    const sentences = albumWithTrack.map((pair) => DIGITAL_MESSAGES.albumIncludes(nameOf(pair.albumProductId), nameOf(pair.trackProductId)));
    throw new AppError('failed-precondition', sentences.join(' '), { includedTracks: albumWithTrack.map((pair) => pair.trackProductId) });
  }
}
