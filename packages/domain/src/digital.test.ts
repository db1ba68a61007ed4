import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './digital.ts';

describe('durations as the console takes and shows them (issue 28, decision 064)', () => {
  it.each([
    ['3:05', 185],
    ['0:01', 1],
    ['59:59', 3599],
    ['75:00', 4500],
    ['1:02:03', 3723],
    ['24:00:00', 86_400],
    ['185', 185],
    ['  4:20 ', 260],
  ])('reads %j as %i seconds', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(['', '3:5', '3:60', '1:2:03', '1:60:00', 'abc', '-3', '3.5', '3:05:', ':05', '1:02:03:04', '123456'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it.each([
    [0, '0:00'],
    [5, '0:05'],
    [185, '3:05'],
    [3599, '59:59'],
    [3723, '1:02:03'],
    [86_400, '24:00:00'],
  ])('shows %i seconds as %j, which reads back the same', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
    expect(parseDuration(text)).toBe(seconds);
  });
});
