import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import yazl from 'yazl';
import { DIGITAL_MESSAGES, downloadsOpen } from '@storefront/domain/digital.ts';
import { todayIn } from '@storefront/domain/sales.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { StorageDriver } from '../storage/storage.driver.ts';
import { FORMAT_FILES } from './encoder.ts';
import { downloadFiles, owns, previewFile, type DownloadFile } from './library.service.ts';
import { verifyDownload } from './links.ts';
import { findRelease } from './releases.service.ts';

/**
 * The bytes of digital releases (issue 28):
 *   GET /api/digital/tracks/:trackId/preview   the preview of a published release's track, with HTTP ranges (the player seeks)
 *   GET /dl/<token>                             a signed, short-lived download: one track, or the release as a zip
 */
export interface DigitalRoutesOptions {
  config: Config;
  db: Db;
  driver: StorageDriver;
  /** The label's calendar day (YYYY-MM-DD); tests set it. Default: today in LABEL_TIME_ZONE, asked at each download. */
  today?: () => string;
}

/** One `bytes=` range of `size` bytes, inclusive; null for none; 'unsatisfiable' for a range outside the file. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/** A file name that every browser and file system takes. */
export function safeName(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- dropping control characters is the point
      .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]/g, '_')
      .trim()
      .slice(0, 120) || 'untitled'
  );
}

function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

const trackName = (file: DownloadFile, extension: string) => `${String(file.position).padStart(2, '0')} ${safeName(file.title)}.${extension}`;

export async function digitalRoutes(app: FastifyInstance, options: DigitalRoutesOptions) {
  const { db, driver, config } = options;
  const today = options.today ?? (() => todayIn(config.LABEL_TIME_ZONE));

  async function sendFile(request: FastifyRequest, reply: FastifyReply, file: DownloadFile, disposition?: string) {
    const range = parseRange(request.headers.range, file.size);
    void reply.header('accept-ranges', 'bytes').header('content-type', file.contentType).header('cache-control', 'private, no-store');
    if (disposition) void reply.header('content-disposition', disposition);
    if (range === 'unsatisfiable') return reply.status(416).header('content-range', `bytes */${file.size}`).send();
    const blob = await driver.get(file.key, range ?? undefined);
    if (!blob) throw new AppError('not-found', DIGITAL_MESSAGES.notEncoded);
    if (range) void reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${file.size}`);
    return reply.header('content-length', range ? range.end - range.start + 1 : file.size).send(blob.stream);
  }

  app.get('/api/digital/tracks/:trackId/preview', async (request: FastifyRequest<{ Params: { trackId: string } }>, reply) => {
    const trackId = Number(request.params.trackId);
    const file = Number.isSafeInteger(trackId) && trackId > 0 ? await previewFile(db, trackId) : undefined;
    if (!file) throw new AppError('not-found', DIGITAL_MESSAGES.trackNotFound);
    return sendFile(request, reply, file);
  });

  // A wildcard: a token is longer than Fastify's 100-character limit on a named parameter.
  app.get('/dl/*', async (request: FastifyRequest<{ Params: { '*': string } }>, reply) => {
    const verified = verifyDownload([config.AUTH_SECRET, ...config.AUTH_SECRET_PREVIOUS], request.params['*']);
    if (!verified.ok)
      throw new AppError(
        verified.reason === 'expired' ? 'permission-denied' : 'not-found',
        verified.reason === 'expired' ? DIGITAL_MESSAGES.linkExpired : DIGITAL_MESSAGES.linkInvalid,
      );
    const { grant } = verified;
    // Checked again at download time: ownership can end (a refund) while a link is live.
    if (!(await owns(db, grant.userId, grant.releaseId, grant.trackId))) throw new AppError('permission-denied', DIGITAL_MESSAGES.notOwned);
    const release = await findRelease(db, grant.releaseId);
    if (!release) throw new AppError('not-found', DIGITAL_MESSAGES.releaseNotFound);
    // A preorder (a release date after the label's today): bought, owned, not downloadable until its day.
    if (!downloadsOpen(release.releaseDate, today())) throw new AppError('failed-precondition', DIGITAL_MESSAGES.notOutYet(release.releaseDate));
    const files = await downloadFiles(db, grant.releaseId, grant.trackId, grant.format);
    const extension = FORMAT_FILES[grant.format].extension;
    if (grant.trackId !== null) {
      const [file] = files;
      if (!file) throw new AppError('not-found', DIGITAL_MESSAGES.notEncoded);
      return sendFile(request, reply, file, attachment(`${safeName(release.artist)} - ${trackName(file, extension)}`));
    }
    if (files.length === 0) throw new AppError('not-found', DIGITAL_MESSAGES.notEncoded);
    // Audio does not compress further: stored entries, streamed one after the other.
    const zip = new yazl.ZipFile();
    const folder = safeName(`${release.artist} - ${release.title}`);
    for (const file of files) {
      // Each object is opened when the zip reaches it (an S3 answer left waiting would time out).
      zip.addReadStreamLazy(`${folder}/${trackName(file, extension)}`, { compress: false, size: file.size }, (callback) => {
        driver.get(file.key).then(
          (blob) => (blob ? callback(null, blob.stream) : callback(new Error(`The stored file ${file.key} is missing.`), undefined as never)),
          (error: unknown) => callback(error, undefined as never),
        );
      });
    }
    zip.end();
    return reply
      .header('content-type', 'application/zip')
      .header('cache-control', 'private, no-store')
      .header('content-disposition', attachment(`${folder} (${grant.format.toUpperCase()}).zip`))
      .send(zip.outputStream);
  });
}
