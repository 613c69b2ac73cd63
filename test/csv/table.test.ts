import { describe, expect, it } from 'vitest';
import { readCsv } from '../../src/csv/read.js';
import { InputError } from '../../src/errors.js';
import { defaultResultsPath, csvCell } from '../../src/reach/results.js';
import { tempDir, writeIn } from '../reach/helpers.js';

describe('CSV input', () => {
  it('reads a BOM, quoted commas and line breaks, and gives each row the line it starts on', async () => {
    const path = writeIn(tempDir(), 'a.csv', '\uFEFFcaller_id,note\n+621,"a, b"\n\n+622,"two\nlines"\n+623,x\n');
    const file = await readCsv(path);
    expect(file.header).toEqual(['caller_id', 'note']);
    expect(file.problems).toEqual([]);
    expect(file.rows.map((r) => [r.row, r.line, r.fields.caller_id, r.fields.note])).toEqual([
      [1, 2, '+621', 'a, b'],
      [2, 4, '+622', 'two\nlines'],
      [3, 6, '+623', 'x'],
    ]);
    expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('reports rows with the wrong number of fields, duplicate columns and a missing body', async () => {
    const dir = tempDir();
    const bad = await readCsv(writeIn(dir, 'b.csv', 'a,a\n1\n1,2\n'));
    expect(bad.problems).toEqual([
      { line: 1, message: 'column a appears twice' },
      { line: 2, message: '1 field, but the header has 2' },
    ]);
    const headerOnly = await readCsv(writeIn(dir, 'c.csv', 'a,b\n'));
    expect(headerOnly.problems).toEqual([{ line: 2, message: 'no rows after the header' }]);
    await expect(readCsv(writeIn(dir, 'd.csv', ''))).rejects.toBeInstanceOf(InputError);
    await expect(readCsv(`${dir}/missing.csv`)).rejects.toThrow(/cannot read .*missing.csv: no such file or folder/);
    await expect(readCsv(writeIn(dir, 'e.csv', 'a,b\n"open,1\n'))).rejects.toThrow(
      /e\.csv: line 2: a quoted field is never closed/,
    );
    // Not UTF-8: refused before any row is read, never read with replacement characters.
    const utf16 = `${dir}/f.csv`;
    (await import('node:fs')).writeFileSync(utf16, Buffer.from('\ufeffcaller_id\n+621\n', 'utf16le'));
    await expect(readCsv(utf16)).rejects.toThrow(/f\.csv: line 1: the file holds NUL bytes; is it UTF-16\?/);
    const cp1252 = `${dir}/g.csv`;
    (await import('node:fs')).writeFileSync(cp1252, Buffer.from([0x61, 0x0a, 0x4a, 0xe9, 0x0a]));
    await expect(readCsv(cp1252)).rejects.toThrow(
      /g\.csv: line 2, byte 2 \(byte 4 of the file\): not valid UTF-8 \(0xE9\)/,
    );
  });

  it('results: beside the input, RFC 4180 quoting', () => {
    expect(defaultResultsPath('/x/callers.csv')).toBe('/x/callers.results.csv');
    expect(defaultResultsPath('/x/callers')).toBe('/x/callers.results.csv');
    expect(csvCell('a,"b"\nc')).toBe('"a,""b""\nc"');
    expect(csvCell(undefined)).toBe('');
  });
});
