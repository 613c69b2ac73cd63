import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { recordJson, taskEnvelope } from '../../bench/large-task-data.mjs';
import type { CsvMode } from '../../src/report/csv.js';
import { RecordWriter, TASK_RECORD_COLUMNS } from '../../src/report/export.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { fixtureServer } from './fixture-server.js';
import { tempDir } from '../helpers/temp.js';

// CSV exports (src/report/export.ts, cells by src/report/csv.ts) of records of any content.

/** The CSV RecordWriter writes of `items`, handed to it in groups of three as a stream hands them out. */
async function exportCsv(columns: readonly string[], mode: CsvMode, items: object[]): Promise<string> {
  const parts: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      parts.push(Buffer.from(chunk));
      done();
    },
  });
  const writer = new RecordWriter<object>(
    { format: 'csv', columns, csvMode: mode, bom: false },
    { stream: () => sink },
  );
  await writer.start();
  for (let i = 0; i < items.length; i += 3) await writer.records(items.slice(i, i + 3), []);
  await writer.finish();
  return Buffer.concat(parts).toString('utf8');
}

/**
 * What a cell must read back as: the value's text, nested values as JSON, nothing for null; in
 * UTF-8 (a lone surrogate is U+FFFD in the file).
 */
const asCell = (v: unknown) =>
  Buffer.from(v === undefined || v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)).toString();

const COLUMNS = ['id', 'name', 'phone', 'amount', 'nested', 'flag'] as const;

/** JSON text of a string, sometimes with escapes JSON.stringify would not write. */
const stringText = fc
  .tuple(
    fc.oneof(
      fc.string({ unit: fc.constantFrom(...'"\\,; \t\n\r=+-@.0123456789eE/:Tx é中📞\u2028'.split(''), '📞', 'ab') }),
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom(
        '',
        ' x',
        'x ',
        'x\t',
        '+5511987654321',
        '=1+1',
        '@SUM(1)',
        '-2',
        '2026-11-20',
        '1/2/3',
        '12',
        ' 1,5 ',
        '1e5',
        '1.2.3',
        '٣',
        '12abc',
        '1\u00a0',
        '\u00a012',
        '0012-01-5x',
      ),
      fc.string({ minLength: 250, maxLength: 300, unit: fc.constantFrom('1', '2', ',') }),
      fc.constantFrom('1'.repeat(255), '1'.repeat(256), `=${'x'.repeat(254)}`, `@${'x'.repeat(255)}`),
    ),
    fc.constantFrom('plain', 'unicode-escapes', 'slash'),
  )
  .map(([s, how]) => {
    const text = JSON.stringify(s);
    if (how === 'unicode-escapes')
      return text.replace(/[^\x20-\x7e]|[,=]/gu, (c) =>
        [...c].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
      );
    return how === 'slash' ? text.replaceAll('/', '\\/') : text;
  });

const numberText = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '1e5',
    '1E+2',
    '1.50',
    '-3.25',
    '0.1',
    '0.000001',
    '0.0000001',
    '123456789012345',
    '1234567890123456789',
    '-0.0',
    '2.5e-3',
    '100',
  ),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
);

/** A nested value's JSON text, compact, spaced, or with the service's own number spellings. */
const nestedText = fc.oneof(
  fc
    .jsonValue({ maxDepth: 3 })
    .filter((v) => typeof v === 'object' && v !== null)
    .map((v) => JSON.stringify(v)),
  fc
    .jsonValue({ maxDepth: 3 })
    .filter((v) => typeof v === 'object' && v !== null)
    .map((v) => JSON.stringify(v, null, 2)),
  fc.constantFrom(
    '[]',
    '{}',
    '[1]',
    '[1.50,1e5,-0]',
    '{"a" : [ 1 , "x,y" ]}',
    '{"k":"a\\"b","k":"dup"}',
    '{"2":1,"1":2}',
    '["\\u00e9\\/"]',
    '[[],{}]',
  ),
);

const valueText = fc.oneof(
  { weight: 4, arbitrary: stringText },
  numberText,
  nestedText,
  fc.constantFrom('true', 'false', 'null'),
);
const space = fc.constantFrom('', '', ' ', '\n  ');

/** A record's JSON text: usually the named fields in order; sometimes reordered, missing, extra or repeated ones. */
const recordText = fc
  .tuple(
    fc.array(valueText, { minLength: COLUMNS.length, maxLength: COLUMNS.length }),
    fc.constantFrom('usual', 'usual', 'usual', 'reordered', 'missing', 'extra', 'duplicate', 'escaped-key'),
    space,
    fc.nat(),
  )
  .map(([values, shape, sp, n]) => {
    let fields: Array<[string, string]> = COLUMNS.map((c, i) => [JSON.stringify(c), values[i]!]);
    const k = n % fields.length;
    if (shape === 'reordered') fields = [...fields.slice(k), ...fields.slice(0, k)].reverse();
    if (shape === 'missing') fields.splice(k, 1);
    if (shape === 'extra') fields.splice(k, 0, ['"other"', values[k]!]);
    if (shape === 'duplicate') fields.splice(k + 1, 0, [fields[k]![0], values[(k + 1) % values.length]!]);
    if (shape === 'escaped-key')
      fields[k] = [`"\\u00${COLUMNS[k]!.charCodeAt(0).toString(16)}${COLUMNS[k]!.slice(1)}"`, fields[k]![1]];
    return `{${sp}${fields.map(([key, v]) => `${key}${sp}:${sp}${v}`).join(`,${sp}`)}${sp}}`;
  });

describe('CSV exports', () => {
  it('read back as each value: its text, a nested value as its JSON, the unnamed fields as JSON in extra (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(recordText, { minLength: 1, maxLength: 7 }), async (texts) => {
        const items = texts.map((t) => JSON.parse(t) as Record<string, unknown>);
        const rows = parse(await exportCsv(COLUMNS, 'exact', items)) as string[][];
        expect(rows[0]).toEqual([...COLUMNS, 'extra']);
        items.forEach((item, r) => {
          const row = rows[r + 1]!;
          COLUMNS.forEach((c, k) => expect(row[k], c).toBe(asCell(item[c])));
          const extra = Object.fromEntries(
            Object.entries(item).filter(([k]) => !(COLUMNS as readonly string[]).includes(k)),
          );
          expect(row[COLUMNS.length]).toBe(Object.keys(extra).length ? asCell(extra) : '');
        });
        // For a spreadsheet: every cell that reads differently is the text formula of the same text.
        const excel = parse(await exportCsv(COLUMNS, 'excel', items)) as string[][];
        excel.forEach((row, r) =>
          row.forEach((cell, c) => {
            const exact = rows[r]![c]!;
            if (cell !== exact) expect([`="${exact.replaceAll('"', '""')}"`, `'${exact}`]).toContain(cell);
          }),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('a file export over hundreds of groups: the same bytes as on stdout, every record once and in order', async () => {
    // Served in 97-byte pieces: hundreds of groups, several buffers in the file stream at once.
    const server = await fixtureServer({ '/service/cloud/detail': () => taskEnvelope(600, 'T-MANY') });
    onTestFinished(() => server.close());
    const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
    const file = join(tempDir('callctl-csv-export-'), 'many.csv');
    const written = await runCli(['task', 'detail', 'T-MANY', '--format', 'csv', '-o', file], { env });
    expect(written.code).toBe(0);
    const piped = await runCli(['task', 'detail', 'T-MANY', '--format', 'csv'], { env });
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(piped.out);
    const rows = parse(text) as string[][];
    expect(rows).toHaveLength(601);
    expect(rows.slice(1).map((row) => row[0])).toEqual(Array.from({ length: 600 }, (_, i) => String(i + 1)));
    const items = Array.from({ length: 600 }, (_, i) => JSON.parse(recordJson(i)) as object);
    expect(await exportCsv(TASK_RECORD_COLUMNS, 'exact', items)).toBe(text);
  });
});
