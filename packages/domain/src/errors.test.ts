import { describe, expect, it } from 'vitest';
import { codeForHttpStatus, codeForStatusName, FUNCTION_ERROR_CODES, httpStatusForCode, statusNameForCode, type FunctionErrorCode } from './errors.ts';

describe('codeForHttpStatus (spec section 8: function errors by HTTP status)', () => {
  it.each<[number, FunctionErrorCode]>([
    [200, 'ok'],
    [204, 'ok'],
    [400, 'invalid-argument'],
    [401, 'unauthenticated'],
    [403, 'permission-denied'],
    [404, 'not-found'],
    [409, 'aborted'],
    [429, 'resource-exhausted'],
    [499, 'cancelled'],
    [501, 'unimplemented'],
    [503, 'unavailable'],
    [504, 'deadline-exceeded'],
    [0, 'internal'],
    [500, 'internal'],
    [418, 'unknown'],
    [502, 'unknown'],
    [302, 'unknown'],
    [405, 'unknown'],
  ])('HTTP %i -> %s', (status, code) => {
    expect(codeForHttpStatus(status)).toBe(code);
  });
});

describe('httpStatusForCode (the server side)', () => {
  it.each<[FunctionErrorCode, number]>([
    ['ok', 200],
    ['invalid-argument', 400],
    ['failed-precondition', 400],
    ['out-of-range', 400],
    ['unauthenticated', 401],
    ['permission-denied', 403],
    ['not-found', 404],
    ['aborted', 409],
    ['already-exists', 409],
    ['resource-exhausted', 429],
    ['cancelled', 499],
    ['unimplemented', 501],
    ['unavailable', 503],
    ['deadline-exceeded', 504],
    ['internal', 500],
    ['unknown', 500],
    ['data-loss', 500],
  ])('%s -> HTTP %i', (code, status) => {
    expect(httpStatusForCode(code)).toBe(status);
  });

  // Every code the table names by status comes back as itself from its own status.
  it.each([
    'invalid-argument',
    'unauthenticated',
    'permission-denied',
    'not-found',
    'aborted',
    'resource-exhausted',
    'cancelled',
    'unimplemented',
    'unavailable',
    'deadline-exceeded',
    'internal',
  ] as const)('%s round-trips through its HTTP status', (code) => {
    expect(codeForHttpStatus(httpStatusForCode(code))).toBe(code);
  });

  it('sends every code with a status the client reads as an error of that class', () => {
    for (const code of FUNCTION_ERROR_CODES) {
      const status = httpStatusForCode(code);
      expect(status, code).toBeGreaterThanOrEqual(code === 'ok' ? 200 : 400);
      expect(codeForHttpStatus(status) === 'ok', code).toBe(code === 'ok');
    }
  });
});

describe('status names in the error body', () => {
  it.each<[FunctionErrorCode, string]>([
    ['invalid-argument', 'INVALID_ARGUMENT'],
    ['failed-precondition', 'FAILED_PRECONDITION'],
    ['deadline-exceeded', 'DEADLINE_EXCEEDED'],
    ['ok', 'OK'],
  ])('%s <-> %s', (code, name) => {
    expect(statusNameForCode(code)).toBe(name);
    expect(codeForStatusName(name)).toBe(code);
  });

  it('round-trips every code', () => {
    for (const code of FUNCTION_ERROR_CODES) expect(codeForStatusName(statusNameForCode(code))).toBe(code);
  });

  it.each([['NOT_A_CODE'], [''], [42], [null], [undefined], [{ status: 'INTERNAL' }]])('does not recognise %j', (name) => {
    expect(codeForStatusName(name)).toBeUndefined();
  });
});
