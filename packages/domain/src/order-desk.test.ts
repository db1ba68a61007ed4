import { describe, expect, it } from 'vitest';
import { csvCell, csvRow, TRACKING_NUMBER_PATTERN, trackingUrl } from './order-desk.ts';

describe('csvCell (RFC 4180, formula-injection safe)', () => {
  it.each([
    ['plain', 'plain'],
    ['Smith, Jane', '"Smith, Jane"'],
    ['12" vinyl', '"12"" vinyl"'],
    ['line one\nline two', '"line one\nline two"'],
    ['a\r\nb', '"a\r\nb"'],
    ['東京都渋谷区', '東京都渋谷区'],
    ['Zoë Ünal', 'Zoë Ünal'],
    ['=HYPERLINK("http://x")', '"\'=HYPERLINK(""http://x"")"'],
    ['+1 555 0100', "'+1 555 0100"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['', ''],
    // Spreadsheets set to a `;` separator (most of Europe) split an unquoted `;`.
    ['Flat 2; Rear', '"Flat 2; Rear"'],
    [';', '";"'],
  ])('%j -> %j', (input, expected) => {
    expect(csvCell(input)).toBe(expected);
  });

  it('keeps numbers as numbers (a negative number is not text a spreadsheet runs)', () => {
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(null)).toBe('');
    expect(csvRow(['a', 1, 'b,c'])).toBe('a,1,"b,c"\r\n');
    expect(csvRow(['a;b', 2])).toBe('"a;b",2\r\n');
  });
});

describe('tracking', () => {
  it.each([
    ['USPS', '9400 1000 0000 0000 0000 00', 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400100000000000000000'],
    ['UPS', '1Z999AA10123456784', 'https://www.ups.com/track?tracknum=1Z999AA10123456784'],
    ['FedEx', '123456789012', 'https://www.fedex.com/fedextrack/?trknbr=123456789012'],
    ['DHL', '1234567890', 'https://www.dhl.com/global-en/home/tracking/tracking-express.html?submit=1&tracking-id=1234567890'],
    ['Other', 'ABC123', null],
  ])('%s %s', (carrier, number, url) => {
    expect(trackingUrl(carrier, number)).toBe(url);
  });

  it.each([
    ['1Z999AA1', true],
    ['12', false],
    ['<script>', false],
    ['a b-c 1', true],
    ['x'.repeat(41), false],
  ])('%s valid: %s', (number, valid) => {
    expect(TRACKING_NUMBER_PATTERN.test(number)).toBe(valid);
  });
});
