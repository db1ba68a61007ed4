import { describe, expect, it } from 'vitest';
import { effectiveReleaseDate, formatShipDate, isCalendarDate, notYetOut, PREORDER_MESSAGES, preorderLabel, shipsWhen } from './preorders.ts';

describe('preorder rules (decision 054)', () => {
  it.each([
    ['2027-03-05', true],
    ['2028-02-29', true],
    ['2027-02-29', false],
    ['2027-13-01', false],
    ['2027-3-5', false],
    ['', false],
    ['2027-03-05T00:00', false],
  ])('%s is a calendar day: %s', (value, expected) => expect(isCalendarDate(value)).toBe(expected));

  it.each([
    ['2027-03-05', 'Preorder - ships Mar 5, 2027'],
    ['2026-12-31', 'Preorder - ships Dec 31, 2026'],
    ['2027-01-01', 'Preorder - ships Jan 1, 2027'],
  ])('the label of %s reads %s in every time zone', (date, label) => expect(preorderLabel(date)).toBe(label));

  it('keeps text that is not a date as it is', () => expect(formatShipDate('soon')).toBe('soon'));

  it.each([
    [{ releaseDate: '2027-03-05' }, undefined, '2027-03-05'],
    [{ releaseDate: '2027-03-05' }, { releaseDate: '2027-04-01' }, '2027-04-01'],
    [{ releaseDate: null }, { releaseDate: '2027-04-01' }, '2027-04-01'],
    [{ releaseDate: null }, { releaseDate: null }, null],
    [{}, {}, null],
  ])('a variant ships on its own date, else the product’s: %j %j -> %s', (product, variant, expected) => expect(effectiveReleaseDate(product, variant)).toBe(expected));

  it.each([
    [[{}, { shipsOn: null }], undefined],
    [[{ shipsOn: '2027-03-05' }], 'This is a preorder, paid now. It ships on Mar 5, 2027, the release date.'],
    [[{ shipsOn: '2027-03-05' }, { shipsOn: '2027-04-01' }], 'This order holds preorders, paid now. It ships on Apr 1, 2027, when its last preorder is out.'],
    [
      [{ shipsOn: null }, { shipsOn: '2027-04-01' }, { shipsOn: '2027-03-05' }],
      'This order mixes items in stock and preorders. It is one order, paid now; it ships on Apr 1, 2027, when its last preorder is out, unless we send the items in stock ahead of it.',
    ],
  ])('checkout says when %j ships', (lines, expected) => expect(shipsWhen(lines)).toBe(expected));

  it('names the dates not yet out on a day, none on or after them', () => {
    const lines = [{ shipsOn: '2027-03-05' }, { shipsOn: null }, { shipsOn: '2027-04-01' }, { shipsOn: '2027-03-05' }];
    expect(notYetOut(lines, '2027-03-01')).toBe('Mar 5, 2027, Apr 1, 2027');
    expect(notYetOut(lines, '2027-03-05')).toBe('Apr 1, 2027');
    expect(notYetOut(lines, '2027-04-01')).toBeUndefined();
    expect(PREORDER_MESSAGES.notYetOut('Apr 1, 2027')).toBe(
      'This order has preorder items that are not out yet (ships Apr 1, 2027). Confirm to ship them before their release date.',
    );
  });
});
