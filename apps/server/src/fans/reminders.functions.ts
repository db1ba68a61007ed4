import type { FunctionOutput } from '@storefront/domain/contracts/index.ts';
import { lineName } from '@storefront/domain/variants.ts';
import { getProduct } from '../catalog/catalog.service.ts';
import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { rateLimitSubject } from '../http/client-address.ts';
import { hitRateLimit } from '../http/rate-limit.ts';
import { checkoutOfReminderLink, reminderSettings, saveReminderSettings } from './reminders.service.ts';

/** The cart reminder (issue 37 part 7, decision 078): its setting (admins) and its link's cart (anyone holding the signed link). */
export function reminderFunctions(): CallableFunction[] {
  return [
    defineFunction('getAudienceSettings', async (_input, { db }) => reminderSettings(db)),
    defineFunction('saveAudienceSettings', async ({ cartReminderHours }, { db, caller }) => saveReminderSettings(db, cartReminderHours, { userId: caller.userId })),
    defineFunction('restoreCart', async ({ token }, { db, config, ip }) => {
      await hitRateLimit(db, `cart-restore:${rateLimitSubject(ip)}`, 60, 600);
      const found = await checkoutOfReminderLink(db, [config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS], token);
      if (!found) return { lines: [], missing: 0, valid: false };
      const lines: FunctionOutput<'restoreCart'>['lines'] = [];
      let missing = 0;
      for (const item of found.items) {
        // A gift card names its recipient at checkout: it is chosen again, not rebuilt.
        if (item.giftCard) {
          missing += 1;
          continue;
        }
        const product = await getProduct(db, item.id, { includeInactive: false }).catch(() => null);
        const variant = product?.variants.find((candidate) => candidate.id === (item.variantId ?? item.id)) ?? (item.variantId ? undefined : product?.variants[0]);
        if (!product || !variant || variant.stock === 0) {
          missing += 1;
          continue;
        }
        const isDefault = variant.id === product.id;
        const named = item.digital && item.unitCents > variant.priceCents;
        lines.push({
          lineId: variant.id,
          ...(isDefault ? {} : { productId: product.id, variantId: variant.id }),
          title: lineName(product.name, variant.options),
          image: product.images[0] ?? '',
          priceCents: named ? item.unitCents : variant.priceCents,
          qty: item.digital ? 1 : Math.max(1, Math.min(item.qty, variant.stock ?? item.qty)),
          ...(item.digital ? { digital: true as const } : {}),
          ...(named ? { amountCents: item.unitCents, minimumCents: variant.priceCents } : {}),
        });
      }
      return { lines, missing, valid: true };
    }),
  ];
}
