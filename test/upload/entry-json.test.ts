import { describe, expect, it } from 'vitest';
import { readHeader } from '../../src/upload/columns.js';
import { RowEntry } from '../../src/upload/entry-json.js';
import { checkFields, toEntry } from '../../src/upload/validate.js';

const header = (names: string[]) => readHeader(names, 1, 'f.csv');

/** What RowEntry writes for a row, from offset 5 of a buffer of `size` bytes; undefined if it did not fit. */
function written(row: RowEntry, size = 1 << 16): string | undefined {
  const buffer = Buffer.alloc(size);
  const end = row.writeTo(buffer, 5);
  return end < 0 ? undefined : buffer.subarray(5, end).toString('utf8');
}

describe('RowEntry', () => {
  const headers = [
    ['callee', 'platform'],
    ['callee', 'platform', 'caseid', 'pds_variables', 'name', 'note'],
    ['Name', 'PLATFORM', '10', 'callee', '2', 'b', '0', 'a', '__proto__', '4294967295', '007', 'k"ey\\', 'é'],
    ['pds_variables', 'caseid', 'platform', 'callee'],
  ];
  const values = [
    '',
    'x',
    'Ann, Jr',
    'quote " backslash \\ tab \t nl \n',
    'é € 😀 \u2028',
    '\u0000\u007f',
    '{"tier":2,"tags":["a",null]}',
    'call back',
    '{ "spaced" : [1, 2.50] }',
  ];

  it("writes exactly JSON.stringify of the row's list entry, for any header and row, with and without keepEmpty", () => {
    let checked = 0;
    for (const names of headers) {
      const columns = header(names);
      for (const keepEmpty of [false, true]) {
        const row = new RowEntry(columns, { keepEmpty });
        for (let seed = 0; seed < 200; seed++) {
          const fields = names.map((_, i) => values[(seed * 7 + i * 3 + (seed >> 3)) % values.length]!);
          fields[columns.callee] = '+6281234567';
          fields[columns.platform] = seed % 5 === 0 ? 'é'.repeat(3) : 'shop-1';
          // Every third row spells its callee as an export may: the entry carries it in E.164.
          if (seed % 3 === 0) fields[columns.callee] = '+62 812-345-67';
          const r = checkFields(columns, fields, 2, undefined);
          if (!r.ok) continue;
          const expected = JSON.stringify(toEntry(columns, fields, r, { keepEmpty }));
          expect(expected).toContain('"callee":"+6281234567"');
          expect(written(row.set(fields, r))).toBe(expected);
          expect(row.toJson()).toBe(expected);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('keeps a column named __proto__ as a variable, and puts index-like keys first as JSON.stringify does', () => {
    const columns = header(['callee', 'platform', 'b', '__proto__', '10', '2']);
    const fields = ['+6281234567', 'p', 'B', 'P', 'ten', 'two'];
    const text = written(
      new RowEntry(columns, { keepEmpty: false }).set(fields, { callee: fields[0]!, pds: undefined }),
    )!;
    expect(text).toBe(
      '{"callee":"+6281234567","platform":"p","variables":{"2":"two","10":"ten","b":"B","__proto__":"P"}}',
    );
    expect(Object.keys(JSON.parse(text).variables)).toEqual(['2', '10', 'b', '__proto__']);
  });

  it('returns -1 when the entry may not fit, and the same text once there is room', () => {
    const columns = header(['callee', 'platform', 'note']);
    const row = new RowEntry(columns, { keepEmpty: false }).set(['+6281234567', 'p', 'x'.repeat(100)], {
      callee: '+6281234567',
      pds: undefined,
    });
    expect(written(row, 80)).toBeUndefined();
    expect(written(row, row.toJson().length + 5)).toBe(row.toJson());
  });
});
