import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArraySplitter } from '../../src/api/array-stream.js';

/** Splits `doc` at the given cut points and feeds the pieces; returns the elements and the rest. */
function split(doc: string, cuts: number[], path = ['data', 'detail']) {
  const items: unknown[] = [];
  const s = new ArraySplitter(path, (group, raws) => {
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

describe('ArraySplitter, generated documents (fast-check)', () => {
  it('hands out every element and keeps the rest, wherever the chunks are cut', () => {
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 30 }),
        fc.constantFrom(0, 1, 2),
        fc.array(fc.nat(), { maxLength: 40 }),
        (detail, spacing, cuts) => {
          const doc = JSON.stringify({ code: 200, data: { TaskID: 'T', detail, after: [1] } }, null, spacing);
          const points = cuts.map((c) => c % (Buffer.byteLength(doc) + 1));
          expect(split(doc, points)).toEqual({
            items: detail,
            rest: { code: 200, data: { TaskID: 'T', detail: [], after: [1] } },
            found: true,
          });
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('an empty chunk after one that ended just after a backslash leaves the escape to the next', () => {
    // The empty chunk took the escaped character: the strings that followed were read shifted,
    // and the bracket inside one closed the array.
    const doc = '{"data":{"detail":[{"a\\\\":"],["},{"b":1}]}}';
    const cut = doc.indexOf('\\') + 1;
    expect(split(doc, [cut, cut]).items).toEqual([{ 'a\\': '],[' }, { b: 1 }]);
  });

  it('a document that stops inside the array, or inside a string of it, is cut short', () => {
    const doc = '{"data":{"detail":[{"a":"x\\"y"},{"b":[1,2]}]}}';
    for (let end = 19; end < doc.length - 2; end++) {
      expect(() => split(doc.slice(0, end), [7, 20, 25]), String(end)).toThrow(/the answer was cut short/);
    }
  });

  it('a string of many escapes is read in one pass: its length times a constant, not squared', () => {
    // Each escape searched the rest of the chunk again for the closing quote: a string of 2 MB of
    // escapes took seconds. Counted, not timed: the searches of the chunk made for that string.
    const long = JSON.stringify({ data: { detail: ['\n\\'.repeat(20_000)] } });
    const chunk = Buffer.from(long);
    let searched = 0;
    const indexOf = chunk.indexOf.bind(chunk);
    chunk.indexOf = ((value: number, from?: number) => {
      const at = indexOf(value, from);
      searched += (at < 0 ? chunk.length : at) - (from ?? 0);
      return at;
    }) as typeof chunk.indexOf;
    const items: unknown[] = [];
    const s = new ArraySplitter(['data', 'detail'], (group) => items.push(...group));
    s.write(chunk);
    s.end();
    expect(items).toEqual(['\n\\'.repeat(20_000)]);
    expect(searched).toBeLessThan(4 * chunk.length);
  });
});
