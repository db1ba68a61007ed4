// The parts of s3rver's API the tests use (the package ships no types).
declare module 's3rver' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export interface S3rverOptions {
    directory: string;
    silent?: boolean;
    configureBuckets?: { name: string }[];
    resetOnClose?: boolean;
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
    configureBuckets(): Promise<void>;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
  }
}
