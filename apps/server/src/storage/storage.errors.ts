import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STORAGE_MESSAGES, type StorageErrorCode } from '@storefront/domain/storage.ts';

/** A refusal of the storage service: a code from the spec's storage catalogue and its HTTP status. */
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

export function handleStorageError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (request.raw.destroyed && !request.raw.complete) {
    // The client hung up mid-upload (a dropped connection): nobody is left to answer.
    request.log.info({ err: error }, 'storage client went away');
    return reply.raw.destroy();
  }
  if (error instanceof StorageHttpError) {
    request.log.info({ code: error.code, message: error.message }, 'storage request refused');
    return reply.status(error.statusCode).send(storageErrorBody(error.code, error.statusCode, error.message));
  }
  const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 400 && status < 500) {
    return reply.status(status).send(storageErrorBody('invalid-argument', status, error.message));
  }
  request.log.error({ err: error }, 'storage request failed');
  return reply.status(500).send(storageErrorBody('internal-error', 500, STORAGE_MESSAGES.internalError('the server could not finish the request.')));
}
