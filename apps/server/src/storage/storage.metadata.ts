import { z } from 'zod';
import { describeZodError } from '../http/error-handler.ts';
import { storageErrors } from './storage.errors.ts';

/**
 * The metadata a client may send with an upload. Header-bound values must be plain
 * printable ASCII; `contentType` is recorded as declared but the stored type comes from
 * the bytes; content encodings other than identity make no sense for re-encoded images.
 */
const headerValue = z
  .string()
  .max(1024)
  .regex(/^[\x20-\x7e]*$/, 'must be printable ASCII')
  .nullish();

const customMetadata = z
  .record(z.string().min(1).max(128), z.string().max(1024))
  .refine((value) => Object.keys(value).length <= 32, 'at most 32 custom metadata keys')
  .nullish();

export const uploadMetadataSchema = z.object({
  name: z.string().max(2048).nullish(),
  fullPath: z.string().max(2048).nullish(),
  bucket: z.string().max(256).nullish(),
  contentType: z.string().max(256).nullish(),
  cacheControl: headerValue,
  contentDisposition: headerValue,
  contentEncoding: z
    .string()
    .refine((value) => value === 'identity', 'only identity is supported for images')
    .nullish(),
  contentLanguage: z
    .string()
    .max(64)
    .regex(/^[A-Za-z0-9-]*$/, 'must be a language tag')
    .nullish(),
  customMetadata,
  /** The wire name some clients use for custom metadata. */
  metadata: customMetadata,
  md5Hash: z
    .string()
    .regex(/^[A-Za-z0-9+/]{22}==$/, 'must be a base64 MD5')
    .nullish(),
});

export interface UploadMetadata {
  contentType?: string | null;
  cacheControl?: string | null;
  contentDisposition?: string | null;
  contentEncoding?: string | null;
  contentLanguage?: string | null;
  customMetadata?: Record<string, string> | null;
  md5Hash?: string | null;
}

/** Parses uploaded metadata JSON; a bad value is a 400 that names the field. */
export function parseUploadMetadata(json: unknown): UploadMetadata {
  const parsed = uploadMetadataSchema.safeParse(json ?? {});
  if (!parsed.success) throw storageErrors.invalid(`Invalid metadata: ${describeZodError(parsed.error)}`);
  const { contentType, cacheControl, contentDisposition, contentEncoding, contentLanguage, md5Hash } = parsed.data;
  return {
    contentType,
    cacheControl,
    contentDisposition,
    contentEncoding,
    contentLanguage,
    md5Hash,
    customMetadata: parsed.data.customMetadata ?? parsed.data.metadata ?? null,
  };
}

export function parseMetadataText(text: string): UploadMetadata {
  if (text.trim() === '') return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw storageErrors.invalid('Invalid metadata: the metadata must be a JSON object.');
  }
  return parseUploadMetadata(json);
}

/**
 * The body of a metadata update (updateMetadata's PATCH): only the fields sent change,
 * null clears one. `contentType` and the checksum stay the server's (they describe the bytes).
 */
export function parseMetadataPatch(text: string): UploadMetadata {
  let json: unknown = {};
  try {
    if (text.trim() !== '') json = JSON.parse(text);
  } catch {
    throw storageErrors.invalid('Invalid metadata: the metadata must be a JSON object.');
  }
  const parsed = uploadMetadataSchema.safeParse(json);
  if (!parsed.success) throw storageErrors.invalid(`Invalid metadata: ${describeZodError(parsed.error)}`);
  const result: UploadMetadata = {};
  for (const key of ['cacheControl', 'contentDisposition', 'contentEncoding', 'contentLanguage'] as const) {
    if (parsed.data[key] !== undefined) result[key] = parsed.data[key];
  }
  const custom = parsed.data.metadata !== undefined ? parsed.data.metadata : parsed.data.customMetadata;
  if (custom !== undefined) result.customMetadata = custom;
  return result;
}
