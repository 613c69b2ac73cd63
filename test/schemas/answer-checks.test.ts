import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
// @ts-expect-error: a plain .mjs script, run by `npm run build`
import { answerCheckModule } from '../../scripts/validators.mjs';
import { ANSWER_SCHEMAS, answerSchema, type AnswerCheck, type AnswerName } from '../../src/schemas/answers.js';
import { tempDir } from '../helpers/temp.js';

/**
 * An answer's check (generated from its zod schema at build time by scripts/validators.mjs) stands
 * in front of zod: where it says yes, the value is used as it is instead of zod's output. So it must
 * never vouch for a value zod refuses, and what it vouches for must be exactly what zod would hand
 * out (same values, same key order at every level: the CSV export's extra column and a
 * re-serialized NDJSON line depend on the order). Values are generated from each schema's JSON
 * Schema: valid ones, and odd ones with wrong types, unsafe integers, fractions, lone surrogates,
 * absent required keys, unknown keys, `__proto__` keys and shuffled orders.
 */

const RUNS = Number(process.env.PROPERTY_RUNS ?? 400);

type Json = boolean | { [k: string]: unknown };
type Node = {
  type?: string | string[];
  anyOf?: Json[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  items?: Json;
  properties?: Record<string, Json>;
  required?: string[];
  additionalProperties?: Json;
};

/** A JSON value of the wrong kind, for anywhere. */
const junk = fc.constantFrom<unknown>(null, true, 0, -1, 1.5, 2 ** 53, 'x', '', [], {}, ['a'], { a: 'b' });
const oddText = fc.constantFrom('\u{1F600}', '\ud83d', 'a\udc00', ' x ', 'X', '\u{1F600}\u{1F600}');

/** Values for a JSON Schema node: what it allows, or with `odd` also values it or zod may refuse. */
function gen(json: Json, odd: boolean, depth = 0): fc.Arbitrary<unknown> {
  if (
    typeof json === 'boolean' ||
    Object.keys(json).length === 0 ||
    (Object.keys(json).length === 1 && '$schema' in json)
  )
    return fc.oneof(junk, fc.jsonValue({ maxDepth: 2 }));
  const node = json as Node;
  const mixed = (valid: fc.Arbitrary<unknown>) =>
    odd ? fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: junk, weight: 1 }) : valid;
  if (node.anyOf) return fc.oneof(...node.anyOf.map((b) => gen(b, odd, depth)));
  if (node.enum || node.const !== undefined) {
    const known = fc.constantFrom(...(node.enum ?? [node.const]));
    return odd ? fc.oneof(known, fc.string({ maxLength: 3 })) : known;
  }
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.length > 1) return fc.oneof(...types.map((type) => gen({ ...node, type }, odd, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return mixed(fc.boolean());
    case 'string': {
      // A string with a pattern (the spec's times) matches it more often than not.
      const any = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('+6281234567001', '2026-11-20T08:00:00Z'));
      const some = odd ? fc.oneof(any, oddText) : any;
      return mixed(
        node.pattern ? fc.oneof({ arbitrary: fc.stringMatching(new RegExp(node.pattern)), weight: 3 }, some) : some,
      );
    }
    case 'integer':
    case 'number': {
      const edges = [0, -0, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, -(2 ** 53), 1e21, 0.5, -7.25];
      return mixed(odd ? fc.oneof(fc.integer(), fc.constantFrom(...edges)) : fc.integer());
    }
    case 'array':
      return mixed(depth > 2 ? fc.constant([]) : fc.array(gen(node.items ?? true, odd, depth + 1), { maxLength: 3 }));
    case 'object':
      return mixed(objects(node, odd, depth));
    default:
      return junk;
  }
}

function objects(node: Node, odd: boolean, depth: number): fc.Arbitrary<unknown> {
  const shape = node.properties ?? {};
  const required = new Set(node.required ?? []);
  // A required key is absent only in odd values (else a deep schema's values were almost never valid).
  const declared = Object.keys(shape).map((k) => {
    const entry = gen(shape[k]!, odd, depth + 1).map((v) => [k, v] as [string, unknown]);
    return odd || !required.has(k) ? fc.option(entry, { freq: 6 }) : entry;
  });
  const others = node.additionalProperties;
  const names = odd
    ? fc.constantFrom('extra1', 'Extra', '__proto__', 'toString', 'constructor', '0', 'id', 'final')
    : fc.constantFrom('extra1', 'Extra', '0', 'final', 'ptp_date');
  const value = others && typeof others === 'object' ? gen(others, odd, depth + 1) : fc.oneof(junk, fc.string());
  const extra =
    others === false && !odd
      ? fc.constant([])
      : fc.array(fc.tuple(names, value), { maxLength: declared.length ? 2 : 3 });
  const entries = fc
    .tuple(fc.tuple(...declared), extra, fc.integer({ min: 0, max: 5 }), fc.nat())
    .map(([d, x, mode, seed]) => {
      const list = [...(d.filter(Boolean) as Array<[string, unknown]>), ...x];
      // Now and then the keys come in another order.
      if (odd && mode === 0) list.reverse();
      if (odd && mode === 1 && list.length > 1) list.push(list.splice(seed % list.length, 1)[0]!);
      if (odd && mode === 2 && x.length) list.splice(seed % list.length, 0, list.pop()!); // an unknown key among the declared ones
      return list;
    });
  // Built as JSON text and parsed, as answers are: `__proto__` becomes an own key, a repeated key keeps its last value.
  return entries.map((list) =>
    JSON.parse(`{${list.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`),
  );
}

const values = (schema: z.ZodType) => {
  const json = z.toJSONSchema(schema) as Json;
  return fc.oneof(gen(json, false), gen(json, true));
};

/** Every key in order and every leaf by Object.is, as a comparable tree. */
function layout(v: unknown): unknown {
  if (Array.isArray(v)) return ['array', v.map(layout)];
  if (typeof v === 'object' && v !== null)
    return [
      'object',
      Object.getPrototypeOf(v) === Object.prototype,
      Object.keys(v).map((k) => [k, layout((v as Record<string, unknown>)[k])]),
    ];
  return ['leaf', typeof v, Object.is(v, -0) ? '-0' : String(v)];
}

function holdsFor(
  name: string,
  schema: z.ZodType | (() => Promise<z.ZodType>),
  check: () => Promise<AnswerCheck>,
  value?: fc.Arbitrary<unknown>,
  { refusals = true, vouchedAtLeast = RUNS / 40 } = {},
) {
  it(`${name}: vouches only for what zod accepts, as zod would hand it out`, async () => {
    const s = typeof schema === 'function' ? await schema() : schema;
    const vouches = await check();
    let vouched = 0;
    let refused = 0;
    fc.assert(
      fc.property(value ?? values(s), (v) => {
        const parsed = s.safeParse(v);
        if (!parsed.success) refused++;
        if (!vouches(v)) return;
        vouched++;
        expect(parsed.success).toBe(true);
        expect(layout(v)).toEqual(layout(parsed.data));
      }),
      { numRuns: RUNS },
    );
    // Not vacuous: values zod refuses were tried, and values vouched for.
    if (refusals) expect(refused).toBeGreaterThan(0);
    expect(vouched).toBeGreaterThanOrEqual(vouchedAtLeast);
  });
}

/** The check the build would generate for `schema`, and why it is left to zod if it is. */
async function generated(schema: z.ZodType): Promise<{ check: AnswerCheck; leftToZod?: string }> {
  const { code, leftToZod } = answerCheckModule(schema, z) as { code: string; leftToZod?: string };
  const dir = tempDir('callctl-check-', 'file');
  // ajv's runtime helpers (ucs2length...) are required from the project's node_modules.
  symlinkSync(fileURLToPath(new URL('../../node_modules', import.meta.url)), join(dir, 'node_modules'));
  const file = join(dir, 'check.mjs');
  writeFileSync(file, code);
  return { check: ((await import(pathToFileURL(file).href)) as { check: AnswerCheck }).check, leftToZod };
}

const names = Object.keys(ANSWER_SCHEMAS) as AnswerName[];

/** A calling task's own fields, in the spec's order; its records are added as `detail`. */
const TASK = {
  TaskID: 'T1',
  TaskName: 'n',
  RobotMethod: 'single',
  RobotID: 'rb',
  SIPLine: 's',
  Status: 'calling',
  ScheduleStartTime: '2026-11-20T08:00:00Z',
  ScheduleEndTime: '2026-11-21T08:00:00Z',
  RepeatInterval: 0,
  RepeatNumber: 1,
};

describe('the answer checks built from the zod schemas', () => {
  // Every schema of src/schemas/answers.ts, with the check the build generated for it.
  for (const name of names) {
    holdsFor(`answer ${name}`, ANSWER_SCHEMAS[name], answerSchema(name).check, undefined, {
      refusals: name !== 'unknown',
    });
  }
  // Streamed records are vouched for inside their task (src/api/stream.ts): any JSON as records.
  holdsFor(
    'calling task, any JSON as its records',
    ANSWER_SCHEMAS.callingTask,
    answerSchema('callingTask').check,
    fc.array(fc.jsonValue(), { maxLength: 3 }).map((detail) => ({ ...TASK, detail })),
    { vouchedAtLeast: 1 },
  );

  it('no answer schema is left to zod whole', async () => {
    for (const name of names) expect((await generated(await ANSWER_SCHEMAS[name]())).leftToZod, name).toBeUndefined();
  });

  it('vouches for a record in the spec order with valid values (the common case is fast)', async () => {
    const task = await answerSchema('callingTask').check();
    const check = (record: unknown) => task({ ...TASK, detail: [record] });
    const record = {
      id: 1,
      RobotID: 'rb',
      CalleeName: 'n',
      CalleeGender: null,
      CalleeNumber: '+62',
      CallStartTime: '2026-11-20T08:00:00Z',
      Status: 'answered',
      CallTimes: 1,
      RingType: 'normal',
      AsrResult: [{ time: '1', robottext: 'r', text: 't', extra: 1 }],
      EventLabel: { final: 'PTP' },
      RedailCall: [{ CallID: 'r', RingTime: 3 }],
      NerSlots: {},
      caller_number: '+62',
      spare1: 1,
      spare2: { x: [1] },
    };
    expect(check(JSON.parse(JSON.stringify(record)))).toBe(true);
    // Optional fields absent: still vouched for.
    expect(check({ id: 2, CalleeNumber: '+62', extra: null })).toBe(true);
  });

  it('leaves to zod what it cannot vouch for, whatever zod then says', async () => {
    const task = await answerSchema('callingTask').check();
    const check = (record: unknown) => task({ ...TASK, detail: [record] });
    const base = { id: 1, CalleeNumber: '+62' };
    const cases: unknown[] = [
      { CalleeNumber: '+62', id: 1 }, // zod accepts, but would reorder the keys
      { ...base, TalkRound: 1.5 },
      { ...base, id: 2 ** 53 },
      { ...base, RingTime: undefined, extra: 1, TalkRound: 1 }, // a declared key after an unknown one
      JSON.parse('{"id":1,"CalleeNumber":"+62","__proto__":{"x":1}}'),
      { ...base, EventLabel: JSON.parse('{"__proto__":"x"}') },
      [base],
      null,
      'record',
    ];
    for (const v of cases) expect(check(v), JSON.stringify(v)).toBe(false);
    expect(task({ ...TASK, detail: [base] })).toBe(true);
    expect(task({ detail: [base], ...TASK })).toBe(false); // zod would put detail last
  });
});

describe('a schema JSON Schema cannot express is left to zod', () => {
  const object = z.looseObject({ a: z.string() });
  const unsafe: Array<[string, z.ZodType, unknown]> = [
    ['a refinement', z.string().refine((s) => s !== 'x'), 'x'],
    [
      'a check function',
      z
        .string()
        .check(
          (ctx) => void (ctx.value === 'x' && ctx.issues.push({ code: 'custom', message: 'x', input: ctx.value })),
        ),
      'x',
    ],
    ['a rewrite (.trim())', z.string().trim(), ' x '],
    ['a transform', z.string().transform((s) => s.length), 'x'],
    ['a pattern with the u flag', z.string().regex(/^\u{61}$/u), 'a'],
    ['a sticky pattern', z.string().regex(/a/y), 'ba'],
    ['a format (e-mail)', z.email(), 'a@b.io'],
    ['a multiple of', z.number().multipleOf(0.1), 0.3],
    ['a default', z.looseObject({ a: z.string().default('x') }), {}],
    [
      'a union of objects',
      z.union([z.looseObject({ a: z.string() }), z.looseObject({ b: z.string() })]),
      { b: 'x', a: 'y' },
    ],
    ['a record of enum keys', z.record(z.enum(['a', 'b']), z.string()), { b: 'x', a: 'y' }],
    ['a declared key every object has', z.looseObject({ toString: z.string().optional() }), {}],
    ['a date', z.date(), '2026-01-01'],
  ];
  it.each(unsafe)('%s: its check vouches for nothing', async (_what, schema, value) => {
    const { check, leftToZod } = await generated(schema);
    expect(leftToZod).toBeTruthy();
    expect(check(value)).toBe(false);
  });

  // What is expressed is vouched for, and held to zod like the answers.
  const safe: Array<[string, z.ZodType]> = [
    ["a strip object (extra keys are zod's to drop)", z.object({ a: z.string(), b: z.number().optional() })],
    ['a nullable loose object', object.nullable()],
    [
      'a nullable of each kind',
      z.looseObject({
        e: z.enum(['a', 'b']).nullable(),
        l: z.array(z.string()).nullable(),
        n: z.number().int().min(1).nullable(),
        r: z.record(z.string(), z.string()).nullish(),
      }),
    ],
    ['an enum and a literal', z.looseObject({ e: z.enum(['a', 'b']), l: z.literal('x').optional() })],
    ['z.int(), z.int32()', z.looseObject({ i: z.int(), j: z.int32().nullish() })],
    ['a pattern with flags that only widen it', z.string().regex(/^a+$/gim)],
    ['a pipe (its input side checked too)', z.string().pipe(z.string().min(2))],
    ['a union of a string and a number', z.union([z.string(), z.number()])],
    ['a record of strings', z.record(z.string(), z.number().int().nullable())],
    ['keys of any value (present or absent)', z.looseObject({ a: z.unknown(), b: z.any(), c: z.string() })],
    ['an intersection of loose objects', z.intersection(object, z.looseObject({ b: z.string(), a: z.string() }))],
    ['an intersection of strip objects', z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() }))],
    ['an intersection of a loose and a strip object', z.intersection(object, z.object({ b: z.string().nullish() }))],
  ];
  for (const [what, schema] of safe) {
    const made = generated(schema);
    holdsFor(what, schema, async () => (await made).check);
  }
  holdsFor(
    'a minimum length, counted in code points as zod counts',
    z.string().min(2),
    async () => (await generated(z.string().min(2))).check,
    fc.oneof(fc.string({ maxLength: 4 }), oddText, junk),
  );
});
