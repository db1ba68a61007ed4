import { STORAGE_MESSAGES, StorageError } from './storage.ts';

/** The string formats `uploadString` accepts (spec section 5, "Storage client"). */
export const STRING_FORMATS = ['raw', 'base64', 'base64url', 'data_url'] as const;
export type StringFormat = (typeof STRING_FORMATS)[number];

export interface StringData {
  bytes: Uint8Array;
  /** From a data URL's media type; null for the other formats. */
  contentType: string | null;
}

function invalidFormat(format: string, detail: string): StorageError {
  return new StorageError('invalid-format', STORAGE_MESSAGES.invalidFormat(format, detail));
}

function utf8(value: string): Uint8Array {
  // Lone surrogates become U+FFFD, as in every browser.
  return new TextEncoder().encode(value);
}

function base64Bytes(format: 'base64' | 'base64url', value: string): Uint8Array {
  let text = value;
  if (format === 'base64') {
    const bad = text.includes('-') ? '-' : text.includes('_') ? '_' : undefined;
    if (bad) throw invalidFormat(format, `Invalid character '${bad}' found: is it base64url encoded?`);
  } else {
    const bad = text.includes('+') ? '+' : text.includes('/') ? '/' : undefined;
    if (bad) throw invalidFormat(format, `Invalid character '${bad}' found: is it base64 encoded?`);
    text = text.replace(/-/g, '+').replace(/_/g, '/');
  }
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw invalidFormat(format, 'Invalid character found');
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function dataUrlBytes(value: string): StringData {
  const match = /^data:([^,]+)?,/.exec(value);
  if (!match) throw invalidFormat('data_url', "Must be formatted 'data:[<mediatype>][;base64],<data>'");
  const middle = match[1] ?? null;
  const isBase64 = middle?.endsWith(';base64') ?? false;
  const contentType = middle === null ? null : isBase64 ? middle.slice(0, -';base64'.length) : middle;
  const rest = value.slice(value.indexOf(',') + 1);
  if (isBase64) return { bytes: base64Bytes('base64', rest), contentType };
  let decoded: string;
  try {
    decoded = decodeURIComponent(rest);
  } catch {
    throw invalidFormat('data_url', 'Malformed data URL.');
  }
  return { bytes: utf8(decoded), contentType };
}

/** Decodes `value` as `format`; a mismatch throws invalid-format ('String does not match format ...'). */
export function decodeString(format: StringFormat, value: string): StringData {
  switch (format) {
    case 'raw':
      return { bytes: utf8(value), contentType: null };
    case 'base64':
    case 'base64url':
      return { bytes: base64Bytes(format, value), contentType: null };
    case 'data_url':
      return dataUrlBytes(value);
    default:
      throw new StorageError('invalid-argument', `Invalid format '${String(format)}': use one of ${STRING_FORMATS.join(', ')}.`);
  }
}
