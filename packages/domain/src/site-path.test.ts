import { describe, expect, it } from 'vitest';
import { isSameSitePath } from './site-path.ts';

describe('isSameSitePath', () => {
  it.each(['/', '/checkout', '/order-confirmation?x=1', '/a//b'])('%s is on this site', (path) => {
    expect(isSameSitePath(path)).toBe(true);
  });
  it.each(['//evil.example', '/\\evil.example', 'https://evil.example/', 'checkout', '', null, undefined, 42])('%s is not', (value) => {
    expect(isSameSitePath(value)).toBe(false);
  });
});
