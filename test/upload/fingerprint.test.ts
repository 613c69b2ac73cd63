import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
      new RegExp(`^f\\.csv: line ${linesBefore}: not valid UTF-8 \\(byte ${head.length + 4}\\)`),
    );
  });

  it('refuses a file cut inside a character, and NUL bytes (UTF-16)', async () => {
    await expect(fingerprint(file(Buffer.from([0x61, 0x0a, 0x62, 0xe2, 0x82])), 'f.csv')).rejects.toThrow(
      /line 2: not valid UTF-8 \(byte 4\)/,
    );
    await expect(fingerprint(file(Buffer.from('callee\n', 'utf16le')), 'f.csv')).rejects.toThrow(
      /line 1: the file holds NUL bytes; is it UTF-16/,
    );
  });
});
