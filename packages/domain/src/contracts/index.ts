import type { z } from 'zod';
import { accountsContracts } from './accounts.ts';
import { announcementContracts } from './announcements.ts';
import { bundleContracts } from './bundles.ts';
import { catalogContracts } from './catalog.ts';
import { checkoutContracts } from './checkout.ts';
import { consoleContracts } from './console.ts';
import { contentContracts } from './content.ts';
import { discountContracts } from './discounts.ts';
import type { Access } from './define.ts';
import { digitalContracts } from './digital.ts';
import { dropContracts } from './drops.ts';
import { fanContracts } from './fans.ts';
import { giftCardContracts } from './gift-cards.ts';
import { ordersContracts } from './orders.ts';
import { payoutsContracts } from './payouts.ts';
import { rosterContracts } from './roster.ts';
import { royaltyPortalContracts } from './royalty-portal.ts';
import { royaltyContracts } from './royalties.ts';
import { shippingContracts } from './shipping.ts';
import { walletContracts } from './wallet.ts';

/**
 * Every callable function by name (decision 025). A function the server registers has
 * an entry here and the other way round (functions/contracts.test.ts).
 */
export const functionContracts = {
  ...accountsContracts,
  ...announcementContracts,
  ...bundleContracts,
  ...catalogContracts,
  ...checkoutContracts,
  ...consoleContracts,
  ...contentContracts,
  ...digitalContracts,
  ...dropContracts,
  ...fanContracts,
  ...discountContracts,
  ...giftCardContracts,
  ...ordersContracts,
  ...payoutsContracts,
  ...rosterContracts,
  ...royaltyContracts,
  ...royaltyPortalContracts,
  ...shippingContracts,
  ...walletContracts,
};

export type FunctionContracts = typeof functionContracts;
export type FunctionName = keyof FunctionContracts;
/** What a client sends as `data` (null accepted wherever a value is optional). */
export type FunctionInput<N extends FunctionName> = z.input<FunctionContracts[N]['input']>;
/** What a handler receives once the input is parsed (defaults applied, null read as absent). */
export type FunctionParsedInput<N extends FunctionName> = z.output<FunctionContracts[N]['input']>;
/** What the function answers in `data`. */
export type FunctionOutput<N extends FunctionName> = z.output<FunctionContracts[N]['output']>;
export type FunctionAccess<N extends FunctionName> = FunctionContracts[N]['access'];
export type { Access };
