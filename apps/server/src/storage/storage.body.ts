import fs from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { storageErrors } from './storage.errors.ts';

/**
 * Request bodies of the storage routes arrive as raw streams (no body parser), so
 * every handler checks who is calling before a byte is read, and reads no more than
 * it allows.
 */

/** The declared Content-Length, when there is a valid one. */
export function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}

/**
 * Reads the whole body, at most `limit` bytes. Past the limit it stops listening and
 * leaves the rest to Node, which discards it after the answer, so the client still gets
 * the 413 instead of a reset connection.
 */
export function readBody(stream: Readable, limit: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        stream.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}

/**
 * Writes the body to `file`, at most `limit` bytes; resolves with the byte count. On any
 * failure (a dropped connection, too many bytes) the file is removed. Callers check the
 * declared length first: going past the limit means a lying client, whose connection
 * is simply closed.
 */
export async function bodyToFile(stream: Readable, file: string, limit: number, tooLarge: () => Error): Promise<number> {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      done(size > limit ? tooLarge() : null, chunk);
    },
  });
  try {
    await pipeline(stream, counter, fs.createWriteStream(file, { flags: 'wx' }));
    return size;
  } catch (error) {
    await fs.promises.rm(file, { force: true });
    throw error;
  }
}

export interface MultipartRelated {
  metadataText: string;
  data: Buffer;
}

/** The two parts of a `multipart/related` upload: JSON metadata, then the bytes. */
export function parseMultipartRelated(body: Buffer, contentType: string): MultipartRelated {
  const malformed = () => storageErrors.invalid('The multipart body is malformed: send a JSON metadata part and a data part.');
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const value = boundary?.[1] ?? boundary?.[2];
  if (!value) throw malformed();
  const delimiter = Buffer.from(`--${value}`);
  const parts: Buffer[] = [];
  let start = body.indexOf(delimiter);
  if (start === -1) throw malformed();
  for (;;) {
    const afterDelimiter = start + delimiter.length;
    if (body.subarray(afterDelimiter, afterDelimiter + 2).toString('latin1') === '--') break;
    const next = body.indexOf(delimiter, afterDelimiter);
    if (next === -1) throw malformed();
    parts.push(body.subarray(afterDelimiter, next));
    start = next;
  }
  if (parts.length !== 2) throw malformed();
  const [metadataPart, dataPart] = parts.map((part) => {
    // Each part: CRLF, headers, CRLF CRLF, content, CRLF (before the next delimiter).
    const headerEnd = part.indexOf('\r\n\r\n');
    if (!part.subarray(0, 2).equals(Buffer.from('\r\n')) || headerEnd === -1) throw malformed();
    const content = part.subarray(headerEnd + 4);
    if (!content.subarray(content.length - 2).equals(Buffer.from('\r\n'))) throw malformed();
    return content.subarray(0, content.length - 2);
  });
  return { metadataText: metadataPart!.toString('utf8'), data: dataPart! };
}
