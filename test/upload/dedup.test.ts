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

  it('tells whether another index (a later half of the file, sent as its slots) shares a key', () => {
    const head = new DuplicateIndex(DuplicateIndex.capacityFor(1000));
    for (let i = 0; i < 1000; i++) head.add(`+62812${i}`, `C${i}`, i + 2);
    const tail = new DuplicateIndex(DuplicateIndex.capacityFor(1000));
    for (let i = 1000; i < 2000; i++) tail.add(`+62812${i}`, `C${i}`, i + 2);
    const sent = DuplicateIndex.fromSlots(tail.slots, tail.size);
    expect(sent.size).toBe(1000);
    expect(head.overlaps(sent)).toBe(false);
    tail.add('+62812500', 'C500', 5000);
    expect(head.overlaps(DuplicateIndex.fromSlots(tail.slots, tail.size))).toBe(true);
    expect(head.add('+62812999', 'C999', 9)).toBe(1001);
  });
});
