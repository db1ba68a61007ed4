/**
 * Which storage driver storage.test.ts runs against: the local disk, unless a file that
 * imports it chose S3 first (storage.s3-suite.test.ts), so one suite proves both drivers.
 */
let choice: 'local' | 's3' = 'local';

export function useS3Driver(): void {
  choice = 's3';
}

export function storageTestDriver(): 'local' | 's3' {
  return choice;
}
