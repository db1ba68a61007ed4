import { ownImageUrl } from '@storefront/domain/catalog-schemas.ts';
import { CONTENT_MESSAGES, safeImageSrc } from '@storefront/domain/content.ts';
import { defineFunction } from '../functions/registry.ts';
import { AppError } from '../errors.ts';
import { listTimeline, saveHistory, saveHomePage, saveTextPage, setContactEmail } from './content.service.ts';

export const contentFunctions = [
  defineFunction('listHistory', async (query, { db }) => ({ entries: await listTimeline(db, query) })),
  // The console's content editing (issue 18, decision 033): admins only, each save audited.
  defineFunction('saveHomePage', async (input, { db, caller, origin }) => {
    // Covers show the shop's own images only (uploads, sample art), stored as paths.
    const covers = input.covers.map((cover) => {
      const own = ownImageUrl(cover.image, origin ?? '');
      const image = own === undefined ? undefined : safeImageSrc(own);
      if (image === undefined) throw new AppError('invalid-argument', CONTENT_MESSAGES.image);
      return { ...cover, image };
    });
    await saveHomePage(db, { ...input, covers }, { userId: caller.userId });
    return { ok: true as const };
  }),
  defineFunction('saveTextPage', async (input, { db, caller }) => {
    await saveTextPage(db, input, { userId: caller.userId });
    return { ok: true as const };
  }),
  defineFunction('saveHistory', async (input, { db, caller }) => {
    await saveHistory(db, input, { userId: caller.userId });
    return { ok: true as const };
  }),
  defineFunction('setContactEmail', async ({ email }, { db, caller }) => {
    await setContactEmail(db, email, { userId: caller.userId });
    return { ok: true as const };
  }),
];
