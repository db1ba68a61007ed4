import { describe, expect, it } from 'vitest';
import { absoluteUrl, decimalPrice, jsonLdScript, safeJson, shortDescription } from './page-head.ts';

describe('safeJson', () => {
  it.each([['</script><script>alert(1)</script>'], ['<!-- comment -->'], ['a & b > c'], ['line\u2028separator\u2029paragraph']])(
    'writes %j with no character that could end or confuse a script element, and parses back to it',
    (text) => {
      const json = safeJson({ text });
      expect(json).not.toMatch(/[<>&\u2028\u2029]/);
      expect(JSON.parse(json)).toEqual({ text });
    },
  );

  it('a JSON-LD block holds exactly one closing tag, its own', () => {
    const block = jsonLdScript({ name: '</SCRIPT></script>' });
    expect(block.match(/<\/script>/gi)).toHaveLength(1);
    expect(block.endsWith('</script>')).toBe(true);
  });
});

describe('the small helpers', () => {
  it.each([
    [2500, '25.00'],
    [1, '0.01'],
    [100_000_000, '1000000.00'],
  ])('decimalPrice(%i) = %s', (cents, text) => expect(decimalPrice(cents)).toBe(text));

  it('absoluteUrl puts a path on the origin and keeps an absolute URL', () => {
    expect(absoluteUrl('https://shop.example', '/product/p_1')).toBe('https://shop.example/product/p_1');
    expect(absoluteUrl('https://shop.example', 'https://cdn.example/a.png')).toBe('https://cdn.example/a.png');
  });

  it('shortDescription makes one line of at most 160 characters, cut at a word', () => {
    expect(shortDescription('  Black\n\ncotton   tee. ')).toBe('Black cotton tee.');
    const long = shortDescription('word '.repeat(100));
    expect(long.length).toBeLessThanOrEqual(160);
    expect(long).toMatch(/word…$/);
  });
});
