import type { StorageErrorCode } from './storage.ts';

/** A storage failure with a code from the spec's catalogue. `status` is the HTTP status, 0 when none. */
export class StorageError extends Error {
  readonly code: StorageErrorCode;
  status: number;
  /** The server's answer, when there was one. */
  serverResponse: string | null;

  constructor(code: StorageErrorCode, message: string, status = 0, serverResponse: string | null = null) {
    super(message);
    this.name = 'StorageError';
    this.code = code;
    this.status = status;
    this.serverResponse = serverResponse;
  }
}
