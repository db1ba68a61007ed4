/** Texts of the order views the spec does not word (issue 28). */
export const ORDER_TEXTS = {
  // A download or a gift card (sent by email): both are recorded as digital lines.
  digitalLine: 'Digital: nothing ships',
  nothingShips: 'Nothing to ship: downloads only.',
  giftCardsOnly: 'Nothing to ship: gift cards go to their recipients by email.',
  downloadsAndGiftCards: 'Nothing to ship: downloads, and gift cards that go to their recipients by email.',
} as const;

/** What an order with no parcel delivers instead (issue 39): downloads, gift cards by email, or both. */
export function nothingShipsText(items: readonly { digital?: boolean | undefined; giftCard?: boolean | undefined }[]): string {
  const giftCards = items.some((item) => item.giftCard);
  const downloads = items.some((item) => item.digital && !item.giftCard);
  if (giftCards) return downloads ? ORDER_TEXTS.downloadsAndGiftCards : ORDER_TEXTS.giftCardsOnly;
  return ORDER_TEXTS.nothingShips;
}
