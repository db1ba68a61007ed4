import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { RESUMABLE_UPLOAD_CHUNK_SIZE, STORAGE_BUCKET, UPLOAD_MESSAGES } from '@storefront/domain/storage.ts';
import { isImageVariantWidth, variantWidth } from '@storefront/domain/storage-images.ts';
import { checkObjectPath, encodeObjectPath } from '@storefront/domain/storage-location.ts';
import { lastSegment } from '@storefront/domain/storage-paths.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import { describeZodError } from '../http/error-handler.ts';
import type { Caller } from '../functions/registry.ts';
import { declaredLength, parseMultipartRelated, readBody } from './storage.body.ts';
import type { StorageDriver } from './storage.driver.ts';
import { handleStorageError, storageErrors } from './storage.errors.ts';
import { parseMetadataPatch, parseMetadataText } from './storage.metadata.ts';
import { authorizeRead, authorizeWrite } from './storage.rules.ts';
import {
  createStorageDeps,
  deleteObject,
  findByToken,
  findObject,
  listFolder,
  objectKey,
  toMetadata,
  updateObjectMetadata,
  variantKey,
  type StorageDeps,
} from './storage.service.ts';
import { storeUpload, uploadLimit } from './masters.service.ts';
import { cancelSession, findSession, OffsetMismatchError, receiveChunk, startSession, type UploadSession } from './storage.sessions.ts';

/**
 * The storage service, in the REST shape the spec's storage client speaks:
 *
 *   GET    /v0/b/:bucket/o/:path                 metadata (JSON)
 *   GET    /v0/b/:bucket/o/:path?alt=media&token  the bytes (with a download token, or by the read rule without one)
 *   PATCH  /v0/b/:bucket/o/:path                 metadata update (admins, under products/ or content/)
 *   GET    /v0/b/:bucket/o?prefix=&delimiter=/   a folder's items and prefixes
 *   DELETE /v0/b/:bucket/o/:path                 admins, under products/ or content/
 *   POST   /v0/b/:bucket/o?name=:path            uploadType=multipart, or resumable
 *          (X-Goog-Upload-Command: start | query | upload[, finalize] | cancel)
 *   GET    /img/:bucket/:path?w=320|640|1280&token  WebP variants, cached for a year
 *
 * `:path` is one URL segment with its slashes encoded (products%2Fa.png). Metadata is
 * Firebase Storage's resource shape; errors are
 * `{"error": {"code": <http status>, "status": "<storage code>", "message": "..."}}`.
 * `Authorization: Firebase <token>` is the same as `Bearer <token>` (decision 029).
 */
export interface StorageRoutesOptions {
  config: Config;
  db: Db;
  resolveCaller: (request: FastifyRequest) => Promise<Caller | null>;
  /** The local disk under DATA_DIR/storage unless given. */
  driver?: StorageDriver;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

const listQuerySchema = z.object({
  prefix: z.string().max(2048).default(''),
  delimiter: z.string().max(8).optional(),
  maxResults: z.coerce.number().int().min(1).max(1000).default(1000),
  pageToken: z.string().max(2048).optional(),
});
const METADATA_LIMIT = 64 * 1024;

type Query = Record<string, string | undefined>;
type ObjectRequest = FastifyRequest<{ Params: { bucket: string; '*': string }; Querystring: Query }>;
type BucketRequest = FastifyRequest<{ Params: { bucket: string }; Querystring: Query }>;

function checkBucket(bucket: string): string {
  if (bucket !== STORAGE_BUCKET) throw storageErrors.bucketNotFound(bucket);
  return bucket;
}

function checkPath(raw: string | undefined): string {
  const checked = checkObjectPath(raw ?? '');
  if (!checked.ok) throw storageErrors.invalid(checked.problem);
  return checked.path;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function commandsOf(request: FastifyRequest): string[] {
  return (header(request, 'x-goog-upload-command') ?? '')
    .split(',')
    .map((command) => command.trim().toLowerCase())
    .filter(Boolean);
}

function integerHeader(request: FastifyRequest, name: string, what: string): number {
  const value = header(request, name);
  if (value === undefined || !/^\d{1,15}$/.test(value)) throw storageErrors.invalid(`Send ${what} in the ${name} header.`);
  return Number(value);
}

function sessionStatus(session: UploadSession): string {
  return session.status === 'canceled' ? 'cancelled' : session.status;
}

/** The shop's origin: PUBLIC_URL, or (in development without it) the origin the request came to. */
function originOf(request: FastifyRequest, config: Config): string {
  if (config.PUBLIC_URL) return config.PUBLIC_URL.replace(/\/+$/, '');
  return `${request.protocol}://${request.host}`;
}

export async function storageRoutes(app: FastifyInstance, options: StorageRoutesOptions) {
  const deps: StorageDeps = createStorageDeps({ db: options.db, config: options.config, driver: options.driver, log: app.log });
  const { resolveCaller } = options;
  const tooLarge = (maxBytes = options.config.UPLOAD_MAX_BYTES) => storageErrors.tooLarge(UPLOAD_MESSAGES.tooLarge(maxBytes));

  // Bodies stay raw streams: each handler checks the caller before reading a byte.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  app.setErrorHandler(handleStorageError);
  // The Firebase SDKs send `Authorization: Firebase <token>`: the same shop token as `Bearer <token>`.
  app.addHook('onRequest', (request, _reply, done) => {
    const authorization = request.headers.authorization;
    if (authorization && /^Firebase /i.test(authorization)) request.headers.authorization = `Bearer ${authorization.slice(9).trim()}`;
    done();
  });

  // listAll/list: the objects and folders directly under a folder the caller may read.
  app.get('/v0/b/:bucket/o', async (request: BucketRequest, reply) => {
    const bucket = checkBucket(request.params.bucket);
    const query = listQuerySchema.safeParse(request.query);
    if (!query.success) throw storageErrors.invalid(`Invalid list request: ${describeZodError(query.error)}`);
    const { prefix, delimiter, maxResults, pageToken } = query.data;
    if (delimiter !== '/') throw storageErrors.invalid('List a folder with delimiter=/.');
    if (prefix !== '' && !prefix.endsWith('/')) throw storageErrors.invalid('The prefix of a list must be a folder ending with /.');
    // Listing a folder is reading what is in it: the same rule as reading one of its objects.
    authorizeRead(await resolveCaller(request), `${prefix}x`);
    void reply.header('cache-control', 'no-store');
    return listFolder(deps.db, bucket, prefix, { maxResults, pageToken });
  });

  // updateMetadata: admins change the settable metadata (type and bytes stay the server's).
  app.patch('/v0/b/:bucket/o/*', async (request: ObjectRequest) => {
    const bucket = checkBucket(request.params.bucket);
    const path = checkPath(request.params['*']);
    authorizeWrite(await resolveCaller(request), path);
    const body = await readBody(request.body as Readable, METADATA_LIMIT, () => storageErrors.tooLarge('The metadata is too large.'));
    const metadata = parseMetadataPatch(body.toString('utf8'));
    const row = await updateObjectMetadata(deps.db, bucket, path, metadata);
    if (!row) throw storageErrors.objectNotFound(path);
    return toMetadata(row);
  });

  app.get('/v0/b/:bucket/o/*', async (request: ObjectRequest, reply) => {
    const bucket = checkBucket(request.params.bucket);
    const path = checkPath(request.params['*']);
    if (request.query.alt === 'media') return sendMedia(request, reply, bucket, path);
    authorizeRead(await resolveCaller(request), path);
    const row = await findObject(deps.db, bucket, path);
    if (!row) throw storageErrors.objectNotFound(path);
    void reply.header('cache-control', 'no-store');
    return toMetadata(row);
  });

  /**
   * The bytes, for a download URL (its token is the capability) or for the storage SDK's
   * getBytes/getBlob/getStream, which send no token but the caller's `Authorization:
   * Firebase <token>`: those are judged by the read rule, as the metadata that hands out
   * the download URL is (decision 041). A wrong token is refused whoever sends it.
   */
  async function sendMedia(request: ObjectRequest, reply: FastifyReply, bucket: string, path: string) {
    const token = request.query.token;
    if (token === undefined) authorizeRead(await resolveCaller(request), path);
    const row = await findObject(deps.db, bucket, path);
    if (!row) throw storageErrors.objectNotFound(path);
    if (token !== undefined && !row.downloadTokens.includes(token)) throw storageErrors.unauthorized(path);
    const blob = await deps.driver.get(objectKey(row.blobKey));
    if (!blob) {
      request.log.warn({ bucket, path, blobKey: row.blobKey }, 'stored bytes are missing');
      throw storageErrors.objectNotFound(path);
    }
    const etag = `"${row.generation}"`;
    void reply
      .header('content-type', row.contentType)
      // Read by who the caller is, not by a URL's capability: no shared cache keeps it.
      .header('cache-control', token === undefined ? 'private, no-cache' : (row.cacheControl ?? IMMUTABLE))
      .header('etag', etag)
      .header('content-disposition', row.contentDisposition ?? `inline; filename*=UTF-8''${encodeObjectPath(lastSegment(path))}`)
      .header('cross-origin-resource-policy', 'cross-origin');
    if (header(request, 'if-none-match') === etag) {
      blob.stream.destroy();
      return reply.status(304).send();
    }
    return reply.header('content-length', blob.size).send(blob.stream);
  }

  app.delete('/v0/b/:bucket/o/*', async (request: ObjectRequest, reply) => {
    const bucket = checkBucket(request.params.bucket);
    const path = checkPath(request.params['*']);
    authorizeWrite(await resolveCaller(request), path);
    if (!(await deleteObject(deps, bucket, path))) throw storageErrors.objectNotFound(path);
    return reply.status(204).send();
  });

  const upload = async (request: BucketRequest, reply: FastifyReply) => {
    const bucket = checkBucket(request.params.bucket);
    const uploadId = request.query.upload_id;
    if (uploadId) return sessionCommand(request, reply, uploadId);
    if (!request.query.name) throw storageErrors.invalid('Name the object to upload with ?name=<path>.');
    const path = checkPath(request.query.name);
    const protocol = header(request, 'x-goog-upload-protocol') ?? request.query.uploadType;
    const caller = await resolveCaller(request);
    authorizeWrite(caller, path);
    if (protocol === 'multipart') return multipart(request, bucket, path, caller);
    if (protocol === 'resumable') {
      if (!commandsOf(request).includes('start')) throw storageErrors.invalid('Start a resumable upload with X-Goog-Upload-Command: start.');
      return startResumable(request, reply, bucket, path, caller);
    }
    throw storageErrors.invalid('Choose an upload type: uploadType=multipart or uploadType=resumable.');
  };
  app.post('/v0/b/:bucket/o', upload);
  app.put('/v0/b/:bucket/o', upload);

  async function multipart(request: BucketRequest, bucket: string, path: string, caller: Caller) {
    const maxBytes = uploadLimit(options.config, path);
    const limit = maxBytes + METADATA_LIMIT;
    const length = declaredLength(header(request, 'content-length'));
    if (length !== undefined && length > limit) throw tooLarge(maxBytes);
    const contentType = header(request, 'content-type') ?? '';
    if (!/^multipart\/related\s*;/i.test(contentType)) throw storageErrors.invalid('Send a multipart upload as multipart/related.');
    const body = await readBody(request.body as Readable, limit, () => tooLarge(maxBytes));
    const { metadataText, data } = parseMultipartRelated(body, contentType);
    if (data.length > maxBytes) throw tooLarge(maxBytes);
    const metadata = parseMetadataText(metadataText);
    const row = await storeUpload(deps, { bucket, path, bytes: data, metadata, createdBy: caller.userId });
    return toMetadata(row);
  }

  async function startResumable(request: BucketRequest, reply: FastifyReply, bucket: string, path: string, caller: Caller) {
    const totalSize = integerHeader(request, 'x-goog-upload-header-content-length', 'the final size of the upload');
    if (totalSize > uploadLimit(options.config, path)) throw tooLarge(uploadLimit(options.config, path));
    const body = await readBody(request.body as Readable, METADATA_LIMIT, () => storageErrors.tooLarge('The metadata is too large.'));
    const metadata = parseMetadataText(body.toString('utf8'));
    const session = await startSession(deps, {
      bucket,
      path,
      totalSize,
      declaredContentType: header(request, 'x-goog-upload-header-content-type') ?? null,
      metadata,
      createdBy: caller.userId,
    });
    // Absolute, as clients outside a browser (Node's fetch, the Firebase SDK) need it.
    const uploadUrl = `${originOf(request, options.config)}/v0/b/${bucket}/o?name=${encodeObjectPath(path)}&uploadType=resumable&upload_id=${session.id}`;
    void reply
      .header('cache-control', 'no-store')
      .header('x-goog-upload-status', 'active')
      .header('x-goog-upload-url', uploadUrl)
      .header('x-goog-upload-chunk-granularity', String(RESUMABLE_UPLOAD_CHUNK_SIZE));
    return { status: 'active', uploadUrl, received: 0, totalSize };
  }

  async function sessionCommand(request: BucketRequest, reply: FastifyReply, uploadId: string) {
    if (!/^[A-Za-z0-9_-]{32}$/.test(uploadId)) throw storageErrors.invalid(UPLOAD_MESSAGES.sessionNotFound);
    const session = await findSession(deps.db, uploadId);
    const caller = await resolveCaller(request);
    authorizeWrite(caller, session.path);
    if (session.createdBy !== caller.userId) throw storageErrors.unauthorized(session.path);
    void reply.header('cache-control', 'no-store');
    const commands = commandsOf(request);

    const statusReply = (current: UploadSession) => {
      void reply.header('x-goog-upload-status', sessionStatus(current)).header('x-goog-upload-size-received', String(current.received));
      return { status: sessionStatus(current), received: current.received, totalSize: current.totalSize };
    };
    if (commands.includes('query')) return statusReply(session);
    if (commands.includes('cancel')) return statusReply(await cancelSession(deps, session));
    if (!commands.includes('upload') && !commands.includes('finalize')) {
      throw storageErrors.invalid('Unknown upload command: use query, upload, finalize or cancel.');
    }
    const result = await receiveChunk(deps, session, {
      offset: integerHeader(request, 'x-goog-upload-offset', 'the chunk offset'),
      body: request.body as Readable,
      declaredLength: declaredLength(header(request, 'content-length')),
      finalize: commands.includes('finalize'),
    }).catch((error: unknown) => {
      // Tell the client where to continue from (a chunk it gave up on may have arrived after all).
      if (error instanceof OffsetMismatchError) {
        void reply.header('x-goog-upload-status', 'active').header('x-goog-upload-size-received', String(error.received));
      }
      throw error;
    });
    if (result.status === 'active') {
      void reply.header('x-goog-upload-status', 'active').header('x-goog-upload-size-received', String(result.received));
      return { status: 'active', received: result.received, totalSize: session.totalSize };
    }
    void reply.header('x-goog-upload-status', 'final').header('x-goog-upload-size-received', String(session.totalSize));
    return toMetadata(result.object);
  }

  app.get('/img/:bucket/*', async (request: ObjectRequest, reply) => {
    const bucket = checkBucket(request.params.bucket);
    const path = checkPath(request.params['*']);
    const requested = Number(request.query.w);
    if (!isImageVariantWidth(requested)) throw storageErrors.invalid('Ask for a width of 320, 640 or 1280 (?w=640).');
    const row = await findByToken(deps.db, bucket, path, request.query.token);
    if (!row) throw storageErrors.objectNotFound(path);
    const width = variantWidth(requested, row.width);
    const blob = row.variantWidths.includes(width) ? await deps.driver.get(variantKey(row.blobKey, width)) : null;
    if (!blob) {
      request.log.warn({ bucket, path, width }, 'image variant is missing');
      throw storageErrors.objectNotFound(path);
    }
    const etag = `"${row.generation}-${width}"`;
    void reply.header('content-type', 'image/webp').header('cache-control', IMMUTABLE).header('etag', etag).header('cross-origin-resource-policy', 'cross-origin');
    if (header(request, 'if-none-match') === etag) {
      blob.stream.destroy();
      return reply.status(304).send();
    }
    return reply.header('content-length', blob.size).send(blob.stream);
  });
}
