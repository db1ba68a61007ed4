import { describe, expect, it } from 'vitest';
import { isValidDeviceToken, isValidProfileImageUrl, isValidProfileName, isValidUsername, validatedProfileClaims } from './profile.ts';

describe('profile rules', () => {
  it('accepts names as signup stores them, nothing else', () => {
    for (const name of ['Real Fan', 'Zoë 2', '東京 Beats', 'Fan ', 'n'.repeat(30)]) expect(isValidProfileName(name), name).toBe(true);
    for (const name of ['', '   ', '<script>alert(1)</script>', 'n'.repeat(31), 'x'.repeat(100_000), 'a\u0000b', 'a\u202Eb', { name: 'x' }, 42, null]) {
      expect(isValidProfileName(name), String(name).slice(0, 40)).toBe(false);
    }
    expect(isValidUsername('RealFan')).toBe(true);
    for (const username of ['', 'real fan', 'u'.repeat(26), 'a<b', ['a']]) expect(isValidUsername(username)).toBe(false);
  });

  it('accepts https image addresses only', () => {
    expect(isValidProfileImageUrl('https://cdn.example/a.png')).toBe(true);
    expect(isValidProfileImageUrl('http://localhost:3000/img/a.webp')).toBe(true);
    for (const url of [
      'javascript:alert(1)',
      'JAVASCRIPT:alert(1)',
      'data:image/svg+xml,<svg onload=alert(1)>',
      'http://evil.example/a.png',
      'https://user:pw@cdn.example/a.png',
      'https://cdn.example/a.png"onerror="x',
      `https://cdn.example/${'a'.repeat(2048)}`,
      '/relative.png',
      { src: 'https://cdn.example' },
    ]) {
      expect(isValidProfileImageUrl(url), String(url).slice(0, 40)).toBe(false);
    }
  });

  it('accepts push tokens, not markup', () => {
    expect(isValidDeviceToken('fcm:APA91bH-abc_DEF.123')).toBe(true);
    for (const token of ['', '<script>', 'a b', 'x'.repeat(4097)]) expect(isValidDeviceToken(token)).toBe(false);
  });

  it('puts only valid values into claims', () => {
    const base = { id: 'u1', username: 'RealFan', accountType: 'Artist', email: 'fan@example.org', emailVerified: true };
    expect(validatedProfileClaims({ ...base, name: 'Real Fan', image: 'https://cdn.example/a.png' })).toEqual({
      sub: 'u1',
      name: 'Real Fan',
      preferred_username: 'RealFan',
      username: 'RealFan',
      account_type: 'Artist',
      picture: 'https://cdn.example/a.png',
      email: 'fan@example.org',
      email_verified: true,
    });
    expect(validatedProfileClaims({ ...base, accountType: 'Overlord', name: '<script>', image: 'javascript:alert(1)' })).toEqual({
      sub: 'u1',
      preferred_username: 'RealFan',
      username: 'RealFan',
      email: 'fan@example.org',
      email_verified: true,
    });
  });
});
