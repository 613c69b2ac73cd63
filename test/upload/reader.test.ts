import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRecords } from '../../src/csv/read.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let n = 0;
async function read(text: string | Buffer, delimiter = ','): Promise<Array<[number, string[]]>> {
  const path = join(dir, `r${++n}.csv`);
  writeFileSync(path, text);
  const rows: Array<[number, string[]]> = [];
  await readRecords(path, 'f.csv', { delimiter, onRecord: (fields, line) => rows.push([line, fields]) });
  return rows;
}

describe('readRecords', () => {
  it('numbers each record by the line it starts on: quoted LF and CRLF count once, blank lines are skipped but counted', async () => {
    expect(await read('a,b\r\nx,"1\r\n2\r\n3"\r\n\r\ny,"4\n5"\r\nz,6')).toEqual([
      [1, ['a', 'b']],
      [2, ['x', '1\r\n2\r\n3']],
      [6, ['y', '4\n5']],
      [8, ['z', '6']],
    ]);
  });

  it('strips a BOM, reads quoted delimiters and doubled quotes, and other delimiters', async () => {
    expect(await read('\ufeffcallee\tname\n+62\t"a\tb ""c"""\n', '\t')).toEqual([
      [1, ['callee', 'name']],
      [2, ['+62', 'a\tb "c"']],
    ]);
  });

  it('stops at the first row the callback refuses, with its error', async () => {
    const path = join(dir, 'stop.csv');
    writeFileSync(path, 'a\n1\n2\n3\n');
    const seen: number[] = [];
    const run = readRecords(path, 'stop.csv', {
      delimiter: ',',
      onRecord: (_f, line) => {
        seen.push(line);
        if (line === 3) throw new Error('no');
      },
    });
    await expect(run).rejects.toThrow('no');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('names the line a broken row starts on, counting quoted CRLFs once (csv-parse would count them twice)', async () => {
    await expect(read('a,b\r\n"1\r\n2",x\r\n"3\r\n4",y\r\n5,"6\r\n')).rejects.toThrow(
      /^f\.csv: line 6: a quoted field is never closed/,
    );
  });

  it('can be aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const path = join(dir, 'abort.csv');
    writeFileSync(path, 'a\n1\n');
    await expect(
      readRecords(path, 'abort.csv', { delimiter: ',', signal: controller.signal, onRecord: () => undefined }),
    ).rejects.toThrow(/abort/i);
  });
});
