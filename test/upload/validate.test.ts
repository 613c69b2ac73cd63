import { describe, expect, it } from 'vitest';
import { readHeader } from '../../src/upload/columns.js';
import type { Columns } from '../../src/upload/columns.js';
import { checkFields, parsePdsVariables, toEntry, type RowOptions } from '../../src/upload/validate.js';
import { listEntrySchema } from '../../src/schemas/workflow.js';

const header = (names: string) => readHeader(names.split(','), 1, 'f.csv');

describe('readHeader', () => {
  it('matches the known columns case-insensitively; every other column is a variable; rejects columns are ignored', () => {
    const c = header(' Callee ,PLATFORM,caseid,name,rejected_line,rejected_reason,City');
    expect(c).toMatchObject({
      callee: 0,
      platform: 1,
      caseid: 2,
      pdsVariables: -1,
      variables: [
        { index: 3, key: 'name' },
        { index: 6, key: 'City' },
      ],
    });
  });

  it('refuses missing required columns, empty names and repeated names, naming line 1', () => {
    expect(() => header('name,phone')).toThrow(
      /^f\.csv: line 1: missing required columns callee and platform \(the header has: name, phone\)/,
    );
    expect(() => header('callee,,platform')).toThrow(/line 1: column 2 of the header has no name/);
    expect(() => header('callee,platform,name,Name,name')).toThrow(
      /line 1: column "name" appears twice \(columns 3 and 5\)/,
    );
    expect(() => header('callee,platform,Callee')).toThrow(/column "Callee" appears twice/);
  });
});

/** A row checked and, when valid, mapped to its list entry. */
function checkRow(columns: Columns, fields: string[], line: number, options: RowOptions, region?: string) {
  const r = checkFields(columns, fields, line, region);
  return r.ok ? { entry: toEntry(columns, fields, r, options) } : { problems: r.problems };
}

describe('checkFields and toEntry', () => {
  const c = header('callee,platform,caseid,pds_variables,name');
  it('keeps a column named __proto__ as a variable; its JSON puts index-like keys first', () => {
    const columns = header('callee,platform,b,__proto__,10,2');
    const fields = ['+6281234567', 'p', 'B', 'P', 'ten', 'two'];
    const text = JSON.stringify(toEntry(columns, fields, { callee: fields[0]!, pds: undefined }, { keepEmpty: false }));
    expect(text).toBe(
      '{"callee":"+6281234567","platform":"p","variables":{"2":"two","10":"ten","b":"B","__proto__":"P"}}',
    );
    expect(Object.keys(JSON.parse(text).variables)).toEqual(['2', '10', 'b', '__proto__']);
  });
  it('maps a row to a list entry; empty cells are left out unless keepEmpty', () => {
    expect(checkRow(c, ['+6281234567', 'p', '', '', ''], 2, { keepEmpty: false })).toEqual({
      entry: { callee: '+6281234567', platform: 'p', variables: {} },
    });
    expect(checkRow(c, ['+6281234567', 'p', 'C1', '{"a":[1]}', ''], 2, { keepEmpty: true })).toEqual({
      entry: { callee: '+6281234567', platform: 'p', caseid: 'C1', pds_variables: { a: [1] }, variables: { name: '' } },
    });
  });

  it('reads a callee as push reads a caller, and maps it to E.164 (a national number with its region only)', () => {
    for (const written of [
      '+62 812-3450-0014',
      '0062 812 3450 0014',
      '＋６２８１２３４５０００１４',
      ' +6281234500014 ',
    ])
      expect(checkRow(c, [written, 'p', '', '', ''], 2, { keepEmpty: false }).entry?.callee).toBe('+6281234500014');
    expect(checkRow(c, ['0812-3450-0014', 'p', '', '', ''], 2, { keepEmpty: false }, 'ID').entry?.callee).toBe(
      '+6281234500014',
    );
    const national = checkRow(c, ['0812-3450-0014', 'p', '', '', ''], 7, { keepEmpty: false });
    expect(national.problems?.[0]).toMatchObject({
      line: 7,
      column: 'callee',
      message: expect.stringContaining('"0812-3450-0014" reads as a national phone number: give its region'),
    });
    const excel = checkRow(c, ['6.28123E+12', 'p', '', '', ''], 8, { keepEmpty: false });
    expect(excel.problems?.[0]?.message).toMatch(
      /^"6\.28123E\+12" is a number a spreadsheet wrote in scientific notation/,
    );
  });

  it('reports every problem of a row with its line and column', () => {
    const r = checkRow(c, ['6281234567', '', 'C1', '{bad', 'x'], 9, { keepEmpty: false });
    expect(r.problems?.map((p) => [p.line, p.column])).toEqual([
      [9, 'callee'],
      [9, 'platform'],
      [9, 'pds_variables'],
    ]);
    expect(r.problems?.[1]?.message).toBe('platform is empty');
  });

  it('every entry it accepts passes the full list-entry schema, and it refuses what the schema refuses', () => {
    const callees = [
      '+1234567',
      '+123456789012345',
      '+1234567890123456',
      '+123456',
      '1234567',
      '+12345a7',
      '',
      ' +1234567',
    ];
    const platforms = ['', 'p', 'x'.repeat(40), 'x'.repeat(41), 'ü'.repeat(40)];
    const pds = ['', 'plain', '{"k":"v"}', '[1]', '{', ' {"a":1}', '"quoted"'];
    for (const callee of callees) {
      for (const platform of platforms) {
        for (const p of pds) {
          const r = checkRow(c, [callee, platform, 'C', p, 'n'], 2, { keepEmpty: false });
          const loose = { callee, platform, caseid: 'C', variables: { name: 'n' }, ...(p ? { pds_variables: p } : {}) };
          if (r.entry) expect(listEntrySchema.safeParse(r.entry).success).toBe(true);
          else
            expect(
              listEntrySchema.safeParse(loose).success && !p.trim().startsWith('{') && !p.trim().startsWith('['),
            ).toBe(false);
        }
      }
    }
  });
});

describe('parsePdsVariables', () => {
  it('a JSON object, or a plain string; JSON that is not an object is refused', () => {
    expect(parsePdsVariables('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parsePdsVariables('call back')).toEqual({ ok: true, value: 'call back' });
    expect(parsePdsVariables('{"problem":"x"}')).toEqual({ ok: true, value: { problem: 'x' } });
    expect(parsePdsVariables('[1]')).toMatchObject({ ok: false });
    expect(parsePdsVariables('{"a":')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^looks like JSON but is not valid JSON/),
    });
  });
});
