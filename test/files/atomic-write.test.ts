import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFile, tempBeside, writeFileAtomic } from '../../src/files/atomic-write.js';
import { tempDir } from '../helpers/temp.js';

describe('atomic write', () => {
  it('replaces a file whole, private by default, leaving no temporary file behind', () => {
    const dir = tempDir('callctl-atomic-');
    const path = join(dir, 'results.csv');
    writeFileSync(path, 'old\n');
    writeFileAtomic(path, 'new\n');
    expect(readFileSync(path, 'utf8')).toBe('new\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['results.csv']);
  });

  it('a temporary name is beside its target, hidden, and new each time', () => {
    const a = tempBeside('/x/y/out.csv');
    expect(a.startsWith('/x/y/.out.csv.')).toBe(true);
    expect(a.endsWith('.tmp')).toBe(true);
    expect(tempBeside('/x/y/out.csv')).not.toBe(a);
  });

  it('a commit that cannot complete leaves the old file as it was and removes the temporary one', () => {
    const dir = tempDir('callctl-atomic-');
    const path = join(dir, 'out.csv');
    writeFileSync(path, 'old\n');
    const temp = tempBeside(path);
    writeFileSync(temp, 'half');
    // A folder of that name cannot be replaced by a file: the rename fails.
    expect(() => commitFile(temp, join(dir))).toThrow();
    expect(readFileSync(path, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['out.csv']);
  });
});
