import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprint, READ_CHUNK_BYTES } from '../../src/upload/fingerprint.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
let n = 0;
function file(bytes: Buffer): string {
  const path = join(dir, `u${++n}.csv`);
  writeFileSync(path, bytes);
  return path;
}

/** `lines` lines of ASCII filling up to `size` bytes, each ending in LF. */
function asciiLines(size: number): Buffer {
  const line = 'x'.repeat(99) + '\n';
  return Buffer.from(line.repeat(Math.ceil(size / 100)).slice(0, size));
}

describe('fingerprint', () => {
  it('hashes the bytes and accepts a multi-byte character split across two reads', async () => {
    const head = asciiLines(READ_CHUNK_BYTES - 1); // the euro sign's first byte ends the first read
    const bytes = Buffer.concat([head, Buffer.from('€ and 😀\n')]);
    const fp = await fingerprint(file(bytes), 'f.csv');
    expect(fp).toEqual({ sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
  });

  it('names the line of the first byte that is not UTF-8, beyond the first read', async () => {
    const head = asciiLines(READ_CHUNK_BYTES + 500); // 10,491 full lines of 100 bytes, then 5 more... counted below
    const linesBefore = head.toString().split('\n').length; // the line the bad byte lands on
    const bytes = Buffer.concat([head, Buffer.from([0x4a, 0x6f, 0x73, 0xe9, 0x2c]), Buffer.from('\nmore\n')]);
    await expect(fingerprint(file(bytes), 'f.csv')).rejects.toThrow(
      new RegExp(
        `^f\\.csv: line ${linesBefore}, byte ${head.length - head.lastIndexOf(10) - 1 + 4} \\(byte ${head.length + 4} of the file\\): not valid UTF-8`,
      ),
    );
  });

  it('refuses a file cut inside a character, and NUL bytes (UTF-16)', async () => {
    await expect(fingerprint(file(Buffer.from([0x61, 0x0a, 0x62, 0xe2, 0x82])), 'f.csv')).rejects.toThrow(
      /line 2, byte 2 \(byte 4 of the file\): not valid UTF-8/,
    );
    await expect(fingerprint(file(Buffer.from('callee\n', 'utf16le')), 'f.csv')).rejects.toThrow(
      /line 1: the file holds NUL bytes; is it UTF-16/,
    );
  });

  it('a Windows-1252 export: the byte within its line, the byte of the file, and how to convert it', async () => {
    // Excel's "CSV" on Windows: é is 0xE9 there, not UTF-8.
    const header = Buffer.from('callee,platform,caseid,name\n');
    const row = Buffer.concat([
      Buffer.from('+6281234500001,whatsapp,C-1,Jos'),
      Buffer.from([0xe9]),
      Buffer.from(' Ram\n'),
    ]);
    const path = file(Buffer.concat([header, row]));
    const inLine = 'callee,platform,caseid,name\n'.length; // bytes before line 2
    const err = await fingerprint(path, 'contacts.csv').then(
      () => undefined,
      (e: unknown) => e as Error & { details?: Record<string, unknown> },
    );
    expect(err?.message).toBe(
      `contacts.csv: line 2, byte 32 (byte ${inLine + 32} of the file): not valid UTF-8 (0xE9); ` +
        'the file is in another encoding (Windows-1252 if Excel saved it as "CSV"): save it as "CSV UTF-8", ' +
        'or convert it: iconv -f windows-1252 -t utf-8 contacts.csv > contacts-utf8.csv',
    );
    expect(err?.details).toMatchObject({ line: 2, lineByte: 32, byte: inLine + 32 });
  });

  it('names the very byte, wherever it is: after a short ASCII line, and anywhere in generated text', async () => {
    // Found by hand: the search stopped up to a character short (byte 44 for the é at 45).
    const shop = Buffer.concat([
      Buffer.from('callee,platform,name\n+6281234500001,shop,Jos'),
      Buffer.from([0xe9, 0x0a]),
    ]);
    await expect(fingerprint(file(shop), 'c.csv')).rejects.toThrow(
      /^c\.csv: line 2, byte 24 \(byte 45 of the file\): not valid UTF-8 \(0xE9\)/,
    );
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.nat(), async (text, at) => {
        const good = Buffer.from(text);
        // A place between characters, then a byte no UTF-8 text holds alone.
        const cuts = [0, ...[...text].map((_, i) => Buffer.byteLength([...text].slice(0, i + 1).join('')))];
        const cut = cuts[at % cuts.length]!;
        const bytes = Buffer.concat([good.subarray(0, cut), Buffer.from([0xff]), good.subarray(cut)]);
        const err = await fingerprint(file(bytes), 'g.csv').then(
          () => undefined,
          (e: unknown) => e as Error & { details?: Record<string, unknown> },
        );
        const before = bytes.subarray(0, cut);
        if (bytes.includes(0)) return; // NUL bytes: the UTF-16 message, tested above
        expect(err?.details).toEqual({
          line: 1 + before.toString('latin1').split('\n').length - 1,
          lineByte: cut - (before.lastIndexOf(10) + 1) + 1,
          byte: cut + 1,
        });
      }),
      { numRuns: 200 },
    );
  });
});
