import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

/** How a response body is sent once made: its ETag, its compressed forms, the encoding a client takes. */
export type ContentEncoding = 'br' | 'gzip' | 'identity';

/** A response body ready to send. */
export interface Representation {
  body: Buffer;
  /** Weak: the bytes differ per content-encoding, the JSON does not. */
  etag: string;
  encoded(encoding: 'br' | 'gzip'): Promise<Buffer>;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Below this size compression is not worth its headers (as the compress plugin's threshold). */
export const COMPRESS_THRESHOLD = 1024;

export function representation(value: unknown): Representation {
  return representationOf(Buffer.from(JSON.stringify(value)));
}

/** Any body (a server-written page, decision 058) kept with its ETag and compressed forms. */
export function representationOf(body: Buffer): Representation {
  const etag = `W/"${createHash('sha1').update(body).digest('base64url')}"`;
  const encodings = new Map<'br' | 'gzip', Promise<Buffer>>();
  return {
    body,
    etag,
    encoded(encoding) {
      let bytes = encodings.get(encoding);
      if (!bytes) {
        // Made once per change, so a better ratio than per-request compression can afford.
        bytes = encoding === 'br' ? brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 6 } }) : gzip(body, { level: 6 });
        encodings.set(encoding, bytes);
      }
      return bytes;
    },
  };
}

/** Answers for the Accept-Encoding values seen: browsers send a handful, so parsing once each is enough. */
const encodingOf = new Map<string, ContentEncoding>();
const ENCODINGS_KEPT = 64;

/** The encoding to send for an Accept-Encoding header: br, then gzip, else none. */
export function preferredEncoding(acceptEncoding: string | undefined): ContentEncoding {
  if (!acceptEncoding) return 'identity';
  const known = encodingOf.get(acceptEncoding);
  if (known) return known;
  const chosen = parseEncoding(acceptEncoding);
  // Any header may be sent: past this many distinct ones, they are parsed every time.
  if (encodingOf.size < ENCODINGS_KEPT) encodingOf.set(acceptEncoding, chosen);
  return chosen;
}

function parseEncoding(acceptEncoding: string): ContentEncoding {
  const accepted = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find(Boolean);
    if (name) accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const allows = (encoding: string) => (accepted.get(encoding) ?? accepted.get('*') ?? 0) > 0;
  if (allows('br')) return 'br';
  if (allows('gzip')) return 'gzip';
  return 'identity';
}

/** Whether an If-None-Match header names this ETag (weak comparison, as for GET). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}
