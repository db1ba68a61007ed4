import { ownImageUrl } from '@storefront/domain/catalog-schemas.ts';
import { DIGITAL_MESSAGES, downloadsOpen } from '@storefront/domain/digital.ts';
import { todayIn } from '@storefront/domain/sales.ts';
import { isMasterPath } from '@storefront/domain/storage-paths.ts';
import { STORAGE_BUCKET } from '@storefront/domain/storage.ts';
import { getProduct } from '../catalog/catalog.service.ts';
import type { Config } from '../config.ts';
import { defineFunction, type CallableFunction } from '../functions/registry.ts';
import { AppError } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { findObject } from '../storage/storage.service.ts';
import { createDownloadCodes, listDownloadCodes, redeemDownloadCode } from './codes.service.ts';
import { getLibrary, owns } from './library.service.ts';
import { LINK_TTL_MS, signDownload } from './links.ts';
import { setBundledRelease, syncReleaseProducts } from './sales.service.ts';
import { findRelease, findTrack, listReleasesForAdmin, retryTrackEncoding, saveRelease, setTrackMaster, type ArtistsOfRelease } from './releases.service.ts';
import { readPublicRelease } from './digital.pages.ts';

/** The callable functions of digital releases (issue 28): the label's console, the release page and the fan's library. */
export function digitalFunctions(deps: { jobs: JobQueue; config: Config; artistsOfRelease: ArtistsOfRelease; today?: () => string }): CallableFunction[] {
  // The label's calendar day, asked at each call: a preorder's downloads open on its date with no job to run.
  const today = deps.today ?? (() => todayIn(deps.config.LABEL_TIME_ZONE));
  return [
    defineFunction('saveRelease', async (input, { db, origin, caller }) => {
      const artwork = input.artwork ? ownImageUrl(input.artwork, origin ?? '') : '';
      if (artwork === undefined) throw new AppError('invalid-argument', 'Artwork must be an image uploaded to the shop.');
      const saved = await saveRelease(db, deps.jobs, input, artwork);
      await syncReleaseProducts(db, saved.id, { userId: caller.userId });
      return saved;
    }),
    defineFunction('setProductRelease', async ({ productId, releaseId }, { db }) => {
      await getProduct(db, productId, { includeInactive: true });
      if (releaseId !== null && !(await findRelease(db, releaseId))) throw new AppError('not-found', DIGITAL_MESSAGES.releaseNotFound);
      await setBundledRelease(db, productId, releaseId);
      return { ok: true as const };
    }),
    defineFunction('listReleases', async (_input, { db }) => ({ releases: await listReleasesForAdmin(db) })),
    defineFunction('setTrackMaster', async ({ trackId, path }, { db }) => {
      const master = isMasterPath(path) ? await findObject(db, STORAGE_BUCKET, path) : undefined;
      if (!master) throw new AppError('failed-precondition', DIGITAL_MESSAGES.masterNotFound);
      await setTrackMaster(db, deps.jobs, trackId, { path, generation: master.generation });
      return { ok: true as const };
    }),
    defineFunction('retryTrackEncoding', async ({ trackId }, { db }) => {
      await retryTrackEncoding(db, deps.jobs, trackId);
      return { ok: true as const };
    }),
    defineFunction('createDownloadCodes', async ({ releaseId, count }, { db }) => createDownloadCodes(db, releaseId, count)),
    defineFunction('listDownloadCodes', async ({ releaseId }, { db }) => ({ codes: await listDownloadCodes(db, releaseId) })),
    defineFunction('getRelease', async ({ id }, { db }) => ({ release: (await readPublicRelease(db, id, deps.artistsOfRelease)) ?? null })),
    defineFunction('redeemDownloadCode', async ({ code }, { db, caller }) => redeemDownloadCode(db, caller.userId, code)),
    defineFunction('getLibrary', async (_input, { db, caller }) => ({ releases: await getLibrary(db, caller.userId, today()) })),
    defineFunction('createDownloadLink', async ({ releaseId, trackId, format }, { db, caller }) => {
      if (trackId !== undefined) {
        const track = await findTrack(db, trackId);
        if (!track || track.releaseId !== releaseId) throw new AppError('not-found', DIGITAL_MESSAGES.trackNotFound);
      }
      // The same answer whether the release exists or not: nobody learns what others own.
      if (!(await owns(db, caller.userId, releaseId, trackId ?? null))) throw new AppError('permission-denied', DIGITAL_MESSAGES.notOwned);
      const release = await findRelease(db, releaseId);
      if (release && !downloadsOpen(release.releaseDate, today())) throw new AppError('failed-precondition', DIGITAL_MESSAGES.notOutYet(release.releaseDate));
      const expiresAt = Date.now() + LINK_TTL_MS;
      const token = signDownload(deps.config.AUTH_SECRET, { userId: caller.userId, releaseId, trackId: trackId ?? null, format, expiresAt });
      return { url: `/dl/${token}`, expiresAt: new Date(expiresAt).toISOString() };
    }),
  ];
}
