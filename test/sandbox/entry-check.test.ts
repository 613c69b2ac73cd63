import { describe, expect, test } from 'vitest';
import { checkEntry, quickEntryCheck, strictEntrySchema } from '../../src/sandbox/entry-check.js';

const base = { callee: '+6281234567890', platform: 'KreditCepat', caseid: 'C-1', variables: { name: 'Budi' } };

const valid: unknown[] = [
  base,
  { callee: '+1234567', platform: 'p', variables: {} },
  { ...base, callee: '+123456789012345' },
  { ...base, platform: 'x'.repeat(40) },
  { ...base, pds_variables: 'text' },
  { ...base, pds_variables: { a: 1, b: [1], c: null } },
  { ...base, caseid: '' },
  { ...base, variables: { 'a b': '', ü: 'ö' } },
];

const invalid: unknown[] = [
  null,
  'x',
  [base],
  { ...base, callee: '6281234567890' },
  { ...base, callee: '+123456' },
  { ...base, callee: '+1234567890123456' },
  { ...base, callee: ' +6281234567890' },
  { ...base, callee: 6281234567890 },
  { ...base, platform: '' },
  { ...base, platform: 'x'.repeat(41) },
  { ...base, platform: null },
  { ...base, caseid: null },
  { ...base, caseid: 5 },
  { ...base, variables: null },
  { ...base, variables: [] },
  { ...base, variables: { a: 1 } },
  { ...base, variables: { a: null } },
  { ...base, pds_variables: 5 },
  { ...base, pds_variables: null },
  { ...base, pds_variables: [] },
  { ...base, extra: 'x' },
  JSON.parse('{"callee":"+6281234567890","platform":"p","variables":{},"__proto__":{"x":1}}'),
  (() => {
    const { variables: _v, ...rest } = base;
    return rest;
  })(),
];

describe('quickEntryCheck agrees with the schema', () => {
  test.each(valid.map((v) => [JSON.stringify(v), v]))('valid: %s takes the fast path', (_n, e) => {
    expect(strictEntrySchema.safeParse(e).success).toBe(true);
    expect(quickEntryCheck(e)).toBe(true);
  });

  test.each(invalid.map((v) => [JSON.stringify(v), v]))('invalid: %s is refused by both', (_n, e) => {
    expect(quickEntryCheck(e)).toBe(false);
    expect(checkEntry(e).ok).toBe(false);
  });

  test('never accepts what zod refuses, over many random mutations', () => {
    const values = [undefined, null, 0, 1.5, '', 'x', '+1234567', 'x'.repeat(41), [], {}, { a: 'b' }, { a: 1 }, true];
    const keys = ['callee', 'platform', 'caseid', 'variables', 'pds_variables', 'other'];
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 5000; i++) {
      const e: Record<string, unknown> = { ...base };
      for (let k = 0; k <= rand(3); k++) {
        const key = keys[rand(keys.length)]!;
        const value = values[rand(values.length)];
        if (value === undefined) delete e[key];
        else e[key] = value;
      }
      if (quickEntryCheck(e)) expect(strictEntrySchema.safeParse(e).success).toBe(true);
      expect(checkEntry(e).ok).toBe(strictEntrySchema.safeParse(e).success);
    }
  });
});
