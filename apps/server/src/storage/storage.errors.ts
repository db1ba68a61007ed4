import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STORAGE_MESSAGES, type StorageErrorCode } from '@storefront/domain/storage.ts';

/**
 * A refusal of the storage service: a code from the spec's storage catalogue and its HTTP status.
 * The sdk's AuthError (packages/sdk/src/auth.ts) has the same shape by coincidence: another
 * catalogue (auth codes), another end of the wire; this one never leaves the server.
 */
export class StorageHttpError extends Error {
  readonly code: StorageErrorCode;
  readonly statusCode: number;

  constructor(code: StorageErrorCode, message: string, statusCode: number) {
    super(message);
    this.name = 'StorageHttpError';
    this.code = code;
    this.statusCode = statusCode;
  }
}

export const storageErrors = {
  invalid: (message: string) => new StorageHttpError('invalid-argument', message, 400),
  tooLarge: (message: string) => new StorageHttpError('invalid-argument', message, 413),
  unauthenticated: () => new StorageHttpError('unauthenticated', STORAGE_MESSAGES.unauthenticated, 401),
  unauthorized: (path: string) => new StorageHttpError('unauthorized', STORAGE_MESSAGES.unauthorized(path), 403),
  objectNotFound: (path: string) => new StorageHttpError('object-not-found', STORAGE_MESSAGES.objectNotFound(path), 404),
  bucketNotFound: (bucket: string) => new StorageHttpError('bucket-not-found', STORAGE_MESSAGES.bucketNotFound(bucket), 404),
};

/**
 * The storage service's error body: `{"error": {"code": 403, "status": "unauthorized",
 * "message": "..."}}`, `status` being the storage error code the sdk turns into a StorageError.
 */
export function storageErrorBody(code: StorageErrorCode, statusCode: number, message: string) {
  return { error: { code: statusCode, status: code, message } };
}

/** What an HTTP/1.1 reason phrase may carry: printable ASCII, no line breaks, kept short. */
const REASON_PHRASE = /^[\x20-\x7e]{1,200}$/;

/**
 * Sends a storage refusal. The sentence goes in the body and, when it can, as the HTTP
 * reason phrase too: in browsers the official storage SDK appends `xhr.statusText` (the
 * reason phrase), never the body, to its message, so this is the only way the shop's
 * sentence reaches a Firebase app (decision 035). HTTP/2 has no reason phrase: there the
 * SDK shows its own message only.
 */
export function sendStorageError(reply: FastifyReply, code: StorageErrorCode, statusCode: number, message: string) {
  if (REASON_PHRASE.test(message)) reply.raw.statusMessage = message;
  return reply.status(statusCode).send(storageErrorBody(code, statusCode, message));
}

export function handleStorageError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (request.raw.destroyed && !request.raw.complete) {
    // The client hung up mid-upload (a dropped connection): nobody is left to answer.
    request.log.info({ err: error }, 'storage client went away');
    return reply.raw.destroy();
  }
  if (error instanceof StorageHttpError) {
    request.log.info({ code: error.code, message: error.message }, 'storage request refused');
    return sendStorageError(reply, error.code, error.statusCode, error.message);
  }
  const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 400 && status < 500) {
    return sendStorageError(reply, 'invalid-argument', status, error.message);
  }
  request.log.error({ err: error }, 'storage request failed');
  return reply.status(500).send(storageErrorBody('internal-error', 500, STORAGE_MESSAGES.internalError('the server could not finish the request.')));
}
