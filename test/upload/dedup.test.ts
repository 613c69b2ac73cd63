import { describe, expect, it } from 'vitest';
import { DuplicateIndex } from '../../src/upload/dedup.js';

describe('DuplicateIndex', () => {
  it('returns the first line of a repeated callee and caseid; the same callee with another caseid is not a duplicate', () => {
    const d = new DuplicateIndex(4);
    expect(d.add('+6281', 'A', 2)).toBeUndefined();
    expect(d.add('+6281', 'B', 3)).toBeUndefined();
    expect(d.add('+6281', undefined, 4)).toBeUndefined();
    expect(d.add('+6281', 'A', 5)).toBe(2);
    expect(d.add('+6281', undefined, 6)).toBe(4);
    expect(d.add('+6281\u0000A', undefined, 7)).toBeUndefined();
  });

  it('grows past its first capacity without losing or confusing keys', () => {
    const d = new DuplicateIndex(16);
    let duplicates = 0;
    for (let i = 0; i < 300_000; i++) if (d.add(`+62812${i}`, `C${i % 1000}`, i + 2) !== undefined) duplicates++;
    expect(duplicates).toBe(0);
    expect(d.size).toBe(300_000);
    let wrong = 0;
    for (let i = 0; i < 300_000; i += 7) if (d.add(`+62812${i}`, `C${i % 1000}`, 1) !== i + 2) wrong++;
    expect(wrong).toBe(0);
  });
});
