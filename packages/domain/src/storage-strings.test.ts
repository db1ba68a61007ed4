import { describe, expect, it } from 'vitest';
import { StorageError } from './storage.ts';
import { decodeString, type StringFormat } from './storage-strings.ts';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe('uploadString formats (spec section 5)', () => {
  it.each([
    ['raw', 'hello', 'hello', null],
    ['raw', 'héllo ✓', 'héllo ✓', null],
    ['raw', '', '', null],
    ['base64', 'aGVsbG8=', 'hello', null],
    ['base64', 'aGVsbG8', 'hello', null],
    ['base64', 'Pz8/', '???', null],
    ['base64url', 'Pz8_', '???', null],
    ['base64url', 'aGVsbG8', 'hello', null],
    ['data_url', 'data:text/plain;base64,aGVsbG8=', 'hello', 'text/plain'],
    ['data_url', 'data:text/plain,hello%20world', 'hello world', 'text/plain'],
    ['data_url', 'data:,plain', 'plain', null],
    ['data_url', 'data:image/svg+xml;charset=utf-8,%3Csvg%3E', '<svg>', 'image/svg+xml;charset=utf-8'],
  ] as const)('%s %j -> %j (%s)', (format, value, expected, contentType) => {
    const data = decodeString(format, value);
    expect(text(data.bytes)).toBe(expected);
    expect(data.contentType).toBe(contentType);
  });

  it('keeps binary bytes of base64 exactly', () => {
    expect([...decodeString('base64', '/wAB').bytes]).toEqual([255, 0, 1]);
    expect([...decodeString('base64url', '_wAB').bytes]).toEqual([255, 0, 1]);
  });

  it.each([
    ['base64', 'Pz8_', "String does not match format 'base64': Invalid character '_' found: is it base64url encoded?"],
    ['base64', 'a-b=', "String does not match format 'base64': Invalid character '-' found: is it base64url encoded?"],
    ['base64url', 'Pz8/', "String does not match format 'base64url': Invalid character '/' found: is it base64 encoded?"],
    ['base64url', 'a+b', "String does not match format 'base64url': Invalid character '+' found: is it base64 encoded?"],
    ['base64', 'not base64!', "String does not match format 'base64': Invalid character found"],
    ['base64', 'a', "String does not match format 'base64': Invalid character found"],
    ['data_url', 'hello', "String does not match format 'data_url': Must be formatted 'data:[<mediatype>][;base64],<data>'"],
    ['data_url', 'data:text/plain', "String does not match format 'data_url': Must be formatted 'data:[<mediatype>][;base64],<data>'"],
    ['data_url', 'data:text/plain,100%', "String does not match format 'data_url': Malformed data URL."],
    ['data_url', 'data:text/plain;base64,@@@', "String does not match format 'base64': Invalid character found"],
  ] as const)('%s %j -> %s', (format, value, message) => {
    let error: unknown;
    try {
      decodeString(format, value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toMatchObject({ code: 'invalid-format', message });
  });

  it('refuses an unknown format with invalid-argument', () => {
    expect(() => decodeString('hex' as StringFormat, 'ff')).toThrow(expect.objectContaining({ code: 'invalid-argument' }));
  });
});
