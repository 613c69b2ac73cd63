import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it, onTestFinished } from 'vitest';
import { recordJson, taskEnvelope } from '../../bench/large-task-data.mjs';
import { CsvBytes } from '../../src/report/csv-bytes.js';
import type { CsvMode } from '../../src/report/csv.js';
import { RecordWriter, TASK_RECORD_COLUMNS } from '../../src/report/export.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { fixtureServer } from './fixture-server.js';
import { tempDir } from '../helpers/temp.js';

/**
 * The byte path (each record's JSON bytes straight to CSV bytes) against the string path (the
 * parsed record through csvCell, which RecordWriter takes when it has no raw bytes).
 */
async function exportCsv(
  columns: readonly string[],
  mode: CsvMode,
  raws: Buffer[],
  withRaws: boolean,
): Promise<Buffer> {
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
  const items = raws.map((r) => JSON.parse(r.toString('utf8')) as object);
  // In groups, as the stream hands them out.
  for (let i = 0; i < items.length; i += 3)
    await writer.records(items.slice(i, i + 3), withRaws ? raws.slice(i, i + 3) : (undefined as unknown as Buffer[]));
  await writer.finish();
  return Buffer.concat(parts);
}

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

describe('CSV from the records bytes (csv-bytes.ts)', () => {
  it('reads back as the same cells as the string path, on generated records (nested cells: the same JSON)', async () => {
    // How many records took the byte path: most, or the property would test the string path twice.
    let taken = 0;
    let declined = 0;
    const record = CsvBytes.prototype.record;
    CsvBytes.prototype.record = function (this: CsvBytes, ...args) {
      const ok = record.apply(this, args);
      if (ok) taken++;
      else declined++;
      return ok;
    };
    onTestFinished(() => {
      CsvBytes.prototype.record = record;
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(recordText, { minLength: 1, maxLength: 7 }),
        fc.constantFrom<CsvMode>('exact', 'excel'),
        async (texts, mode) => {
          const raws = texts.map((t) => Buffer.from(t));
          const bytes = await exportCsv(COLUMNS, mode, raws, true);
          const strings = await exportCsv(COLUMNS, mode, raws, false);
          const a = parse(bytes) as string[][];
          const b = parse(strings) as string[][];
          expect(a.length).toBe(texts.length + 1);
          expect(a.map((row) => row.length)).toEqual(b.map((row) => row.length));
          a.forEach((row, r) =>
            row.forEach((cell, c) => {
              const other = b[r]![c]!;
              if (cell !== other && /^[[{]/.test(other)) expect(JSON.stringify(JSON.parse(cell))).toBe(other);
              else expect(cell).toBe(other);
            }),
          );
          // A record whose text is what JSON.stringify writes: the very same bytes.
          for (const raw of raws.filter((r) => r.toString() === JSON.stringify(JSON.parse(r.toString())))) {
            expect((await exportCsv(COLUMNS, mode, [raw], true)).toString()).toBe(
              (await exportCsv(COLUMNS, mode, [raw], false)).toString(),
            );
          }
        },
      ),
      { numRuns: 400 },
    );
    expect(taken).toBeGreaterThan(300);
    expect(declined).toBeGreaterThan(100);
  });

  it('takes the byte path for the usual record and declines the others, writing nothing for them', () => {
    const usual = Buffer.from('{"id":1,"name":"a","phone":"+1","amount":"1.5","nested":[],"flag":true}');
    const bytes = new CsvBytes(COLUMNS, 'exact');
    bytes.begin(10);
    expect(bytes.record(usual, JSON.parse(usual.toString()))).toBe(true);
    expect(bytes.take().toString()).toBe('1,a,"+1","1.5",[],true,\r\n');
    for (const odd of [
      '{"id":1,"name":"a","phone":"+1","amount":"1.5","nested":[],"flag":true,"more":1}',
      '{"id":1,"name":"a","phone":"+1","amount":"1.5","nested":[]}',
      '{"name":"a","id":1,"phone":"+1","amount":"1.5","nested":[],"flag":true}',
      '{"id":1,"id":2,"name":"a","phone":"+1","amount":"1.5","nested":[],"flag":true}',
      '{"\\u0069d":1,"name":"a","phone":"+1","amount":"1.5","nested":[],"flag":true}',
    ]) {
      expect(bytes.record(Buffer.from(odd), JSON.parse(odd)), odd).toBe(false);
    }
    // Bytes that are not UTF-8: the parsed record (with U+FFFD) is written instead.
    const bad = Buffer.concat([
      Buffer.from('{"id":1,"name":"a'),
      Buffer.from([0xff]),
      Buffer.from('","phone":"+1","amount":"1.5","nested":[],"flag":true}'),
    ]);
    expect(bytes.record(bad, JSON.parse(bad.toString()))).toBe(false);
    expect(bytes.take().toString()).toBe('1,a,"+1","1.5",[],true,\r\n');
  });

  it('writes the bench task byte for byte as the string path does, in both modes', async () => {
    const raws = Array.from({ length: 700 }, (_, i) => Buffer.from(recordJson(i)));
    for (const mode of ['exact', 'excel'] as const) {
      const bytes = await exportCsv(TASK_RECORD_COLUMNS, mode, raws, true);
      expect(bytes.equals(await exportCsv(TASK_RECORD_COLUMNS, mode, raws, false))).toBe(true);
      expect(bytes.toString().split('\r\n').length).toBe(702);
    }
  });

  it('a file export over hundreds of groups: the same bytes as on stdout and as the string path', async () => {
    // Served in 97-byte pieces: hundreds of groups, several buffers in the file stream at once.
    const server = await fixtureServer({ '/service/cloud/detail': () => taskEnvelope(600, 'T-MANY') });
    onTestFinished(() => server.close());
    const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
    const file = join(tempDir('callctl-csv-bytes-'), 'many.csv');
    const written = await runCli(['task', 'detail', 'T-MANY', '--format', 'csv', '-o', file], { env });
    expect(written.code).toBe(0);
    const piped = await runCli(['task', 'detail', 'T-MANY', '--format', 'csv'], { env });
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(piped.out);
    const rows = parse(text) as string[][];
    expect(rows).toHaveLength(601);
    expect(rows.slice(1).map((row) => row[0])).toEqual(Array.from({ length: 600 }, (_, i) => String(i + 1)));
    expect(
      (
        await exportCsv(
          TASK_RECORD_COLUMNS,
          'exact',
          Array.from({ length: 600 }, (_, i) => Buffer.from(recordJson(i))),
          false,
        )
      ).toString(),
    ).toBe(text);
  });
});
