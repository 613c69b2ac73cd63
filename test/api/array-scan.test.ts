/**
 * ArraySplitter's reading inside the array by the WebAssembly scanner (src/api/array-scan.ts,
 * for the large answers whose groups go to worker threads) against its own reading: the same
 * groups of bytes and counts, the same rest of the document, wherever the chunks are cut, and
 * when the rest is read here again half-way (a worker failed: `parse` back on).
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { arrayScanner, type ArrayScanner } from '../../src/api/array-scan.js';
import { ArraySplitter } from '../../src/api/array-stream.js';

let scanner: ArrayScanner;
beforeAll(async () => {
  scanner = await arrayScanner();
});

/** What a splitter hands out, its bytes and counts (and items, once `parse` is back on at chunk `parseFrom`). */
function read(doc: Buffer, cuts: number[], scanned: boolean, parseFrom = Infinity) {
  const groups: Array<{ run: string; count: number; items?: unknown[] }> = [];
  const splitter = new ArraySplitter(['data', 'detail'], (items, _raws, run, count) =>
    groups.push({ run: Buffer.concat(run).toString('latin1'), count, ...(items ? { items } : {}) }),
  );
  splitter.parse = false;
  if (scanned) splitter.scanner = scanner;
  const points = [...new Set(cuts.filter((c) => c > 0 && c < doc.length))].sort((a, b) => a - b);
  let from = 0;
  [...points, doc.length].forEach((cut, k) => {
    if (k >= parseFrom) splitter.parse = true;
    splitter.write(doc.subarray(from, cut));
    from = cut;
  });
  let rest: string;
  try {
    rest = splitter.end();
  } catch (error) {
    rest = `error: ${(error as Error).message}`;
  }
  return { groups, rest, count: splitter.count, found: splitter.sawArray };
}

/** Records of any JSON, with strings full of what the reading must step over: quotes, backslashes, brackets, commas, é. */
const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '[', ']', '{', '}', ',', ' ', 'é', '\n') });
const record = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(text, tie('value'), { maxKeys: 3 }),
  ),
})).value;

describe('the WebAssembly scanner of ArraySplitter', () => {
  it('hands out the groups its own reading hands out, wherever the chunks are cut (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 30 }),
        fc.integer({ min: 0, max: 2 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.option(fc.nat({ max: 40 })),
        (detail, spacing, cuts, parseFrom) => {
          const doc = Buffer.from(
            JSON.stringify({ code: 200, data: { TaskID: 'T', detail, after: [1] } }, null, spacing),
          );
          const points = cuts.map((c) => c % (doc.length + 1));
          const own = read(doc, points, false, parseFrom ?? Infinity);
          const scanned = read(doc, points, true, parseFrom ?? Infinity);
          expect(scanned).toEqual(own);
          expect(own.count).toBe(detail.length);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('cuts off no document: one that stops inside the array, or inside a string of it, is cut short', () => {
    const doc = Buffer.from('{"data":{"detail":[{"a":"x\\"y"},{"b":[1,2]}]}}');
    for (let end = 19; end < doc.length - 2; end++) {
      const { rest } = read(doc.subarray(0, end), [7, 20, 25], true);
      expect(rest, String(end)).toMatch(/^error: the answer was cut short/);
    }
    expect(read(doc, [7, 20, 25], true).rest).toBe('{"data":{"detail":[]}}');
  });
});
