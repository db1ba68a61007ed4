/**
 * User-facing texts, exactly as the spec words them (spec sections 5 and 8).
 * Tests and the UI both read them from here.
 */
export const CALLABLE_MESSAGES = {
  notJsonObject: 'Response is not valid JSON object.',
  missingData: 'Response is missing data field.',
  deadlineExceeded: 'deadline-exceeded',
} as const;

export const DATA_ACCESS_MESSAGES = {
  maxAttempts: 'maxAttempts must be at least 1.',
  limitToLastNeedsOrder: 'limitToLast() queries require specifying at least one orderBy() clause.',
  emptyFieldPath: 'Invalid field path: a field path must not be empty.',
} as const;
