import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusForCode, statusNameForCode, type FunctionErrorCode } from '@storefront/domain/errors.ts';
import { ZodError } from 'zod';
import { isDatabaseUnavailable, noteDatabaseOutage } from '../db/availability.ts';
import { sqlState } from '../db/errors.ts';
import { AppError } from '../errors.ts';

export function errorBody(code: FunctionErrorCode, message: string, details?: unknown) {
  return { error: { status: statusNameForCode(code), message, ...(details === undefined ? {} : { details }) } };
}

/**
 * The first problem of a failed parse, worded for a person. Our own messages are whole
 * sentences (the spec's texts among them) and go out as they are; the library's terse
 * defaults get the field's path in front ("items.0.qty: Too small ...").
 */
export function describeZodError(error: ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid input.';
  if (/[.!?]$/.test(issue.message)) return issue.message;
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message}`;
}

// Text Postgres cannot store (a NUL character, \u0000 in JSON): the caller's input, not our bug.
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/** The answer while the database is away (issue 40 item 18): try again shortly. */
export const DATABASE_AWAY_MESSAGE = 'The shop cannot reach its database for a moment. Please try again.';
const DATABASE_RETRY_AFTER_SECONDS = 2;

function classify(error: FastifyError | Error): { code: FunctionErrorCode; message: string; details?: unknown } {
  if (error instanceof AppError) return { code: error.code, message: error.message, details: error.details };
  if (isDatabaseUnavailable(error)) return { code: 'unavailable', message: DATABASE_AWAY_MESSAGE };
  if (error instanceof ZodError) return { code: 'invalid-argument', message: describeZodError(error) };
  if (UNSTORABLE_TEXT.has(sqlState(error) ?? '')) return { code: 'invalid-argument', message: 'Text may not contain the NUL character (\\u0000).' };
  const status = 'statusCode' in error && typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status === 429) return { code: 'resource-exhausted', message: 'Too many requests. Please wait a moment and try again.' };
  if (status === 413) return { code: 'invalid-argument', message: 'The request body is too large.' };
  if (status === 415) return { code: 'invalid-argument', message: 'Send the request body as JSON.' };
  if (status >= 400 && status < 500) return { code: 'invalid-argument', message: error.message };
  return { code: 'internal', message: 'Internal error.' };
}

/** One place that turns thrown errors into responses; the text of a 5xx never leaves the server. */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const { code, message, details } = classify(error);
  const status = httpStatusForCode(code);
  if (message === DATABASE_AWAY_MESSAGE) {
    // One line per outage (the app's outage listener), not one per request.
    noteDatabaseOutage(error);
    request.log.debug({ err: error }, 'database unavailable');
    void reply.header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS));
  } else if (status >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.info({ code, message }, 'request refused');
  void reply.status(status).send(errorBody(code, message, details));
}
