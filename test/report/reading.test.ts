import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timeOf, timeOfText } from '../../src/report/reading.js';

/** timeOf reads the usual shape digit by digit: it must give what the regular expression gives, for every string. */
describe('timeOf', () => {
  const digit = fc.constantFrom(...'0123456789');
  const near = fc.constantFrom(...'0123456789', '-', ':', 'T', ' ', 'Z', 'x', '\t', '\u00a0', '\u0660', '+', '.');
  const usual = fc
    .tuple(
      fc.array(digit, { minLength: 19, maxLength: 19 }),
      fc.constantFrom('T', ' ', 'x'),
      fc.constantFrom('', 'Z', ' ', 'z', 'ZZ'),
      fc.constantFrom('', ' ', '\t', '\ufeff'),
    )
    .map(([d, sep, end, pad]) => {
      const c = d.join('');
      return `${pad}${c.slice(0, 4)}-${c.slice(5, 7)}-${c.slice(8, 10)}${sep}${c.slice(11, 13)}:${c.slice(14, 16)}:${c.slice(17, 19)}${end}${pad}`;
    });
  // One character of a usual time replaced by one that could confuse a reader.
  const mutated = fc
    .tuple(usual, fc.nat(), near)
    .map(([s, i, ch]) => s.slice(0, i % (s.length + 1)) + ch + s.slice((i % (s.length + 1)) + 1));
  it('equals the regular-expression reading on times, near-times and any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          usual,
          mutated,
          fc.string({ maxLength: 22 }),
          fc.array(near, { minLength: 18, maxLength: 21 }).map((a) => a.join('')),
        ),
        (v) => {
          expect(timeOf(v)).toBe(timeOfText(v));
        },
      ),
      { numRuns: 3000 },
    );
  });
  it('reads both spellings as UTC', () => {
    expect(timeOf('2026-11-20T08:00:30Z')).toBe(Date.UTC(2026, 10, 20, 8, 0, 30));
    expect(timeOf('2026-11-20 08:00:30')).toBe(Date.UTC(2026, 10, 20, 8, 0, 30));
    expect(timeOf(' 2026-11-20 08:00:30 ')).toBe(Date.UTC(2026, 10, 20, 8, 0, 30));
    expect(timeOf('2026-11-20T08:00:30+07:00')).toBeUndefined();
    expect(timeOf(20261120)).toBeUndefined();
  });
});
