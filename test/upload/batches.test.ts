import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchReader, BatchWriter } from '../../src/upload/batches.js';
import { tempDir } from './helpers.js';

const entry = (i: number, note = `n${i}`) => ({ callee: `+62812${i}`, platform: 'p', variables: { note } });

describe('BatchWriter and BatchReader', () => {
  it('cut batches of the given size, spooled as JSON arrays and read back as they are (a huge entry included)', async () => {
    const writer = new BatchWriter(3, 5, join(tempDir(), 'x.spool'));
    const huge = 'é'.repeat(1_500_000); // more than the write buffer once encoded
    for (let i = 1; i <= 7; i++) writer.add(i * 2, JSON.stringify(entry(i, i === 4 ? huge : `n${i}`)));
    expect(writer.finish()).toEqual([
      { index: 5, firstLine: 2, lastLine: 6, count: 3, caseids: false },
      { index: 6, firstLine: 8, lastLine: 12, count: 3, caseids: false },
      { index: 7, firstLine: 14, lastLine: 14, count: 1, caseids: false },
    ]);
    const reader = await BatchReader.open(writer.batches);
    const read = async (i: number) => JSON.parse((await reader.read(i)).details.toString('utf8'));
    expect(await read(0)).toEqual([entry(1), entry(2), entry(3)]);
    expect(await read(1)).toEqual([entry(4, huge), entry(5), entry(6)]);
    expect(await read(2)).toEqual([entry(7)]);
    await reader.close();
    writer.discard();
  });

  it('only plans when it has no spool', () => {
    const writer = new BatchWriter(2, 1);
    for (let i = 1; i <= 3; i++) writer.add(i + 1, undefined);
    expect(writer.finish().map((b) => b.count)).toEqual([2, 1]);
    expect(writer.entries).toBe(3);
  });
});
