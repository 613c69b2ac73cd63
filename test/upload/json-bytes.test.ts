import { describe, expect, it } from 'vitest';
import { writeJson } from '../../src/upload/json-bytes.js';

const written = (value: unknown, size = 1 << 16): string | undefined => {
  const buffer = Buffer.alloc(size);
  const end = writeJson(value, buffer, 3);
  return end < 0 ? undefined : buffer.subarray(3, end).toString('utf8');
};

describe('writeJson', () => {
  it('writes what JSON.stringify writes', () => {
    const values: unknown[] = [
      { callee: '+6281234567', platform: 'p', variables: { name: 'Ann, Jr', note: '' }, caseid: 'C-1' },
      {
        callee: '+6281234567',
        platform: 'shop',
        variables: {},
        pds_variables: { tier: 2, tags: ['a', null, true], deep: { x: 1.5, y: 'é' } },
      },
      {
        s: 'quote " backslash \\ tab \t newline \n nul \u0000 del \u007f',
        u: 'é € 😀 \u2028',
        lone: '\ud800 and \udc00',
      },
      { 2: 'integer keys', 1: 'come first', b: 'then', a: 'insertion order', 'k"ey\n': 'escaped key' },
      {
        skipped: undefined,
        kept: 'x',
        fn: () => 1,
        date: new Date(0),
        nested: Object.assign(Object.create(null), { a: 'b' }),
      },
      JSON.parse('{"__proto__":"own","x":"y"}'),
      'a plain string',
    ];
    for (const v of values) expect(written(v)).toBe(JSON.stringify(v));
  });

  it('returns -1 when the value may not fit', () => {
    const v = { callee: '+6281234567', platform: 'p', variables: { note: 'x'.repeat(100) } };
    expect(written(v, 60)).toBeUndefined();
    expect(written(v, JSON.stringify(v).length + 3)).toBe(JSON.stringify(v));
  });
});
