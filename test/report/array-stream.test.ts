import { describe, expect, it } from 'vitest';
import { ArraySplitter } from '../../src/api/array-stream.js';

/** Splits `doc` at the given cut points and feeds the pieces; returns the elements and the rest. */
function split(doc: string, cuts: number[], path = ['data', 'detail']) {
  const items: unknown[] = [];
  const s = new ArraySplitter(path, (parsed, bytes) => {
    const [group, raws] = [parsed!, bytes!];
    items.push(...group);
    // Each element's own bytes: trimmed, and the same value when parsed.
    expect(raws.map((r) => JSON.parse(r.toString()))).toEqual(group);
    for (const r of raws) expect(r.toString()).toBe(r.toString().trim());
  });
  const bytes = Buffer.from(doc);
  let from = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length)].sort((a, b) => a - b)) {
    s.write(bytes.subarray(from, cut));
    from = cut;
  }
  s.write(bytes.subarray(from));
  return { items, rest: JSON.parse(s.end()), found: s.sawArray };
}

const records = [
  { id: 1, text: 'a "quoted" \\ back\\slash, [brackets] {braces}', nested: { a: [1, { b: '}' }] }, RedailCall: [] },
  { id: 2, text: 'émoji 📞 and \u2028 and \\"', list: [[], {}, [[]]], n: null },
  { id: 3, text: '\\', empty: '' },
];
const doc = JSON.stringify(
  {
    code: 200,
    status: 'OK',
    data: { TaskID: 'T-1', detail: records, after: { detail: [9] } },
    detail: ['not this one'],
  },
  null,
  1,
);

describe('ArraySplitter', () => {
  it('hands out the elements of the array at the path and keeps the rest with it emptied', () => {
    const { items, rest, found } = split(doc, []);
    expect(found).toBe(true);
    expect(items).toEqual(records);
    expect(rest).toEqual({
      code: 200,
      status: 'OK',
      data: { TaskID: 'T-1', detail: [], after: { detail: [9] } },
      detail: ['not this one'],
    });
  });

  it('gives the same result wherever the chunks are cut (every cut point, and random sets of cuts)', () => {
    const whole = split(doc, []);
    const bytes = Buffer.byteLength(doc);
    for (let cut = 1; cut < bytes; cut++) expect(split(doc, [cut])).toEqual(whole);
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let run = 0; run < 300; run++) {
      const cuts = Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => Math.floor(rnd() * bytes));
      expect(split(doc, cuts)).toEqual(whole);
    }
  });

  it('an empty array, a missing one, and a null in its place', () => {
    expect(split('{"data":{"detail":[ ]},"code":200}', [5, 17])).toMatchObject({
      items: [],
      found: true,
      rest: { data: { detail: [] } },
    });
    expect(split('{"data":{"x":1},"code":200}', [3])).toMatchObject({
      items: [],
      found: false,
      rest: { data: { x: 1 } },
    });
    expect(split('{"data":{"detail":null},"code":200}', [])).toMatchObject({
      items: [],
      found: false,
      rest: { data: { detail: null } },
    });
    expect(split('{"data":null,"status":"no","code":500}', [])).toMatchObject({ items: [], rest: { code: 500 } });
  });

  it('a key with escapes is still matched, and keys of the same name elsewhere are not', () => {
    const text = '{"d\\u0061ta":{"deta\\u0069l":[{"a":1},{"a":2}]},"x":{"data":{"detail":[3]}}}';
    const { items, rest } = split(text, [4, 13]);
    expect(items).toEqual([{ a: 1 }, { a: 2 }]);
    expect(rest).toEqual({ data: { detail: [] }, x: { data: { detail: [3] } } });
  });

  it('a syntax error inside an element is thrown by JSON.parse', () => {
    expect(() => split('{"data":{"detail":[{"a":1},{"a":}]}}', [])).toThrow(SyntaxError);
  });
});
