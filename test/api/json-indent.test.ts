/**
 * The WebAssembly indenter of `--json`'s worker threads (src/api/json-indent.ts,
 * wasm/json-indent.ts): its text is JSON.stringify's, byte for byte, or it leaves the group to
 * JSON.stringify. Never a third text.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { indenterBytes, jsonIndenter, type Indenter } from '../../src/api/json-indent.js';
import { sharedMemory } from '../../src/api/wasm.js';
import { recordsText } from '../../src/output/json-stream.js';

let indenter: Indenter;
beforeAll(async () => {
  indenter = await jsonIndenter(undefined, 0, 1 << 20);
});

/** The indenter's text of the array `json`, or undefined where it leaves it to JSON.stringify. */
function indented(json: string, room = 2 << 20): string | undefined {
  const bytes = Buffer.from(json.trim());
  const output = Buffer.alloc(room);
  const length = indenter.write(bytes.subarray(1, -1), output);
  return length === undefined ? undefined : output.subarray(0, length).toString('utf8');
}

/** JSON.stringify's text of the same array (what --json printed before the indenter). */
const stringified = (json: string) => recordsText(JSON.parse(json) as unknown[]);

describe('the JSON indenter', () => {
  it("writes JSON.stringify's bytes for any value JSON.stringify wrote (fast-check)", () => {
    let written = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 8 }), (values) => {
        const json = JSON.stringify(values);
        const text = indented(json);
        runs++;
        if (text !== undefined) written++;
        expect(text === undefined ? stringified(json) : text).toBe(stringified(json));
      }),
      { numRuns: 2000 },
    );
    // fast-check's numbers are mostly ones with 17 digits or exponents (left to JSON.stringify).
    expect(written / runs).toBeGreaterThan(0.05);
  });

  it('writes every value of the kinds records hold (no index keys, numbers of up to 15 digits)', () => {
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string({ unit: 'grapheme' }),
        fc.integer({ min: -1e15 + 1, max: 1e15 - 1 }),
        fc.integer({ min: -1e6, max: 1e6 }).map((n) => n / 100),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value')),
        fc.dictionary(
          fc.string().filter((k) => !/^\d+$/.test(k)),
          tie('value'),
        ),
      ),
    }));
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 8 }), (values) => {
        const json = JSON.stringify(values);
        expect(indented(json)).toBe(stringified(json));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes strings of any characters, as UTF-8, and the control characters JSON.stringify escapes', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { minLength: 1 }), (strings) => {
        const json = JSON.stringify(strings);
        expect(indented(json)).toBe(stringified(json));
      }),
      { numRuns: 1000 },
    );
    const controls = JSON.stringify([Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('')]);
    expect(controls).toContain('\\u001f');
    expect(indented(controls)).toBe(stringified(controls));
  });

  it("gives JSON.stringify's bytes or nothing for any spelling of any value (fast-check)", () => {
    let written = 0;
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 6 }), fc.gen(), (values, gen) => {
        const json = respell(values, gen);
        const text = indented(json);
        if (text !== undefined) written++;
        expect(text === undefined ? stringified(json) : text).toBe(stringified(json));
      }),
      { numRuns: 2000 },
    );
    expect(written).toBeGreaterThan(0);
  });

  it('tells whether its text may hold a part, never no when it does (fast-check)', () => {
    const chars = fc.constantFrom('a', 'b', '-', ' ', '%', '&', '+', '@', ':', '/', '\\', '"', 'é');
    const text = fc.string({ unit: chars, maxLength: 12 });
    let told = 0;
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(text, text), { minLength: 1, maxLength: 4 }),
        fc.array(text),
        (values, parts) => {
          const json = JSON.stringify(values);
          const written = indented(json);
          fc.pre(written !== undefined);
          for (const part of [...parts, '\\', '%', '&', '+', '@', '://', '""']) {
            const holds = indenter.includes(part);
            if (written!.includes(part)) expect(holds, part).toBe(true);
            else if (!holds) told++;
          }
        },
      ),
      { numRuns: 1000 },
    );
    // And no when it does not (most of the time).
    expect(told).toBeGreaterThan(1000);
    indented('[{"a":"b","c":"d"}]');
    for (const part of ['\\', '%', '&', '+', '@', 'ab', '"b":', 'x']) expect(indenter.includes(part), part).toBe(false);
    for (const mark of ['\\', '%', '&', '+', '@']) {
      indented(JSON.stringify([{ a: `x${mark}y` }]));
      expect(indenter.includes(mark), mark).toBe(true);
    }
    indented('[{"a":"b","c":"d"}]');
    for (const part of ['"a": "b"', '{\n      "a"', '"d"\n    }']) expect(indenter.includes(part), part).toBe(true);
  });

  it("searches for any part, a built-in property's name or a lone surrogate's too (a secret such as 'constructor')", () => {
    const names = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__'];
    indented(JSON.stringify([{ password: names.join(' ') }]));
    for (const name of names) expect(indenter.includes(name), name).toBe(true);
    indented(JSON.stringify([{ a: 'b' }]));
    for (const name of names) expect(indenter.includes(name), name).toBe(false);
    // As redaction's pattern (no u flag) finds a lone high surrogate in a pair.
    indented(JSON.stringify([{ a: 'abcd😀' }]));
    expect(indenter.includes('abcd\ud83d')).toBe(true);
  });

  it('leaves an object of more than 256 keys to JSON.stringify (its keys would be compared each with all before it)', () => {
    const keys = (n: number) => JSON.stringify([Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))]);
    expect(indented(keys(256))).toBe(stringified(keys(256)));
    expect(indented(keys(257))).toBeUndefined();
  });

  it('reads and writes in place in a memory it shares (as the worker threads do their slots)', async () => {
    const memory = sharedMemory((1 << 20) + indenterBytes(0))!;
    const inPlace = await jsonIndenter(memory, 1 << 20, 0);
    const json = '[{"a":1,"b":[true,"x"]}]';
    const slots = Buffer.from(memory.buffer);
    slots.write(`${json}${' '.repeat(16)}`, 100);
    const output = slots.subarray(5000, 6000);
    const length = inPlace.write(slots.subarray(101, 100 + json.length - 1), output);
    expect(output.subarray(0, length).toString()).toBe(stringified(json));
    expect(inPlace.includes('"x"')).toBe(true);
    // Bytes of another memory would be copied, and it has no room to copy into.
    expect(inPlace.write(Buffer.from(json).subarray(1, -1), output)).toBeUndefined();
  });

  it('reads any spacing between the tokens', () => {
    const spaced = ' [ { "a" : [ 1 , 2 , { } , [ ] ] ,\n\t"b" :\r\n null } , true , "x" ] ';
    expect(indented(spaced)).toBe(stringified(spaced));
    expect(indented('[{ }]')).toBe('\n    {}');
  });

  it('leaves to JSON.stringify each spelling JSON.stringify would write otherwise', () => {
    const otherwise = [
      '["\\/"]', // stringify writes the slash as it is
      '["\\u00e9"]', // ... a character that needs no escape
      '["\\u0041"]',
      '["\\u000a"]', // ... a line feed as \n
      '["\\u001F"]', // ... in lowercase
      '["\\ud83d\\ude00"]', // ... a pair of surrogates as the character
      '[-0]', // 0
      '[1.50]', // 1.5
      '[1.0]', // 1
      '[1e5]', // 100000
      '[1E5]',
      '[0.0000001]', // 1e-7
      '[1000000000000000000000]', // 1e+21
      '[123456789012345678]', // 123456789012345680
      '[0.12345678901234567]', // 0.12345678901234566
      '[{"a":1,"a":2}]', // {"a":2}
      '[{"b":1,"1":2}]', // {"1":2,"b":1}
    ];
    for (const json of otherwise) {
      // (Each is a spelling JSON.stringify does not write.)
      expect(JSON.stringify(JSON.parse(json)), json).not.toBe(json);
      expect(indented(json), json).toBeUndefined();
    }
    // Their neighbours that JSON.stringify writes as they are.
    const same = [
      '["\\u001f\\"\\\\\\b\\f\\n\\r\\t"]',
      '[0, 1.5, -12.25, 0.000001, 123456789012345, 100000000000000000000, 999999999999999000000]',
      '[{"a":1,"b":{"a":2}}, {"a":3}]',
      '[{"":2,"1a":3,"a1":4}]',
    ];
    for (const json of same) expect(indented(json), json).toBe(stringified(json));
  });

  it('leaves to JSON.stringify a text longer than its room, and nesting deeper than it follows', () => {
    const json = JSON.stringify([{ a: 'x'.repeat(1000) }]);
    expect(indented(json, 500)).toBeUndefined();
    expect(indented(json, 2000)).toBe(stringified(json));
    const deep = `[${'['.repeat(5000)}${']'.repeat(5000)}]`;
    expect(indented(deep)).toBeUndefined();
  });
});

/** `value` as JSON, spelled any way JSON allows: spaces, escapes in either case, numbers as written or not. */
function respell(value: unknown, gen: fc.GeneratorValue): string {
  const pick = <T>(...options: T[]): T => options[gen(fc.integer, { min: 0, max: options.length - 1 })]!;
  const space = () => pick('', '', ' ', '\n  ', '\t');
  const string = (s: string) =>
    `"${[...s]
      .map((ch) => {
        const plain = JSON.stringify(ch).slice(1, -1);
        const code = ch.charCodeAt(0).toString(16).padStart(4, '0');
        return ch.length > 1
          ? plain
          : pick(plain, plain, `\\u${code}`, `\\u${code.toUpperCase()}`, ch === '/' ? '\\/' : plain);
      })
      .join('')}"`;
  const write = (v: unknown): string => {
    if (typeof v === 'string') return string(v);
    if (typeof v === 'number')
      return pick(
        JSON.stringify(v),
        JSON.stringify(v),
        v.toExponential(),
        /[.e]/.test(`${v}`) ? `${v}` : `${v}.0`,
        `${v}`.includes('.') && !`${v}`.includes('e') ? `${v}0` : `${v}`,
      );
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    const inner = Array.isArray(v)
      ? v.map((x) => space() + write(x) + space())
      : Object.entries(v).map(([k, x]) => `${space()}${string(k)}${space()}:${space()}${write(x)}${space()}`);
    if (!Array.isArray(v) && inner.length && pick(false, false, false, true))
      inner.push(`${string(Object.keys(v)[0]!)}:0`);
    return Array.isArray(v) ? `[${inner.join(',')}]` : `{${inner.join(',')}}`;
  };
  return write(value);
}
