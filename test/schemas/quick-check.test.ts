import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { quickCheckOf } from '../../src/schemas/quick-check.js';
import { ANSWER_SCHEMAS, type AnswerName } from '../../src/schemas/answers.js';
import { planOf } from '../../src/schemas/quick-plan.js';
import { callRecordSchema } from '../../src/schemas/task.js';
import { workflowCallDetailSchema } from '../../src/schemas/workflow.js';

/**
 * The quick check stands in front of zod for streamed records: where it says yes, the record is
 * used as it is instead of zod's output. So it must never vouch for a value zod refuses, and what
 * it vouches for must be exactly what zod would hand out (same values, same key order at every
 * level: the CSV export's extra column and a re-serialized NDJSON line depend on the order).
 * Values are generated from each schema's own definition: valid ones, and odd ones with wrong
 * types, unsafe integers, fractions, absent required keys, unknown keys, `__proto__` keys and
 * shuffled orders.
 */

const RUNS = Number(process.env.PROPERTY_RUNS ?? 400);

type Def = {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  checks?: Array<{ _zod: { def: { format?: string; pattern?: RegExp } } }>;
};
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** A JSON value of the wrong kind, for anywhere. */
const junk = fc.constantFrom<unknown>(
  null,
  true,
  0,
  -1,
  1.5,
  2 ** 53,
  'x',
  '',
  [],
  {},
  ['a'],
  { a: 'b' },
  { __proto__: null, k: 1 },
);

/**
 * Values for a schema: what it allows (absent optional keys, nulls, unknown keys), or with `odd`
 * also wrong kinds anywhere, unsafe integers, fractions, `__proto__` keys and other key orders.
 */
function gen(schema: z.ZodType, odd: boolean, depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  const mixed = (valid: fc.Arbitrary<unknown>) =>
    odd ? fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: junk, weight: 1 }) : valid;
  switch (def.type) {
    case 'string': {
      // A string with a pattern (the spec's times) matches it more often than not.
      const pattern = def.checks?.map((c) => c._zod.def).find((d) => d.format === 'regex')?.pattern;
      const any = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('+6281234567001', '2026-11-20T08:00:00Z'));
      return mixed(pattern ? fc.oneof({ arbitrary: fc.stringMatching(pattern), weight: 3 }, any) : any);
    }
    case 'number':
      return mixed(
        odd
          ? fc.oneof(
              fc.integer(),
              fc.constantFrom(0, -0, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, -(2 ** 53), 1e21, 0.5, -7.25),
            )
          : fc.integer(),
      );
    case 'optional':
      // Absent is the object's choice (fc.option below); a null where only absence is allowed is odd.
      if (!odd) return gen(def.innerType!, odd, depth);
    // falls through
    case 'nullable':
      return fc.oneof(
        { arbitrary: gen(def.innerType!, odd, depth), weight: 3 },
        { arbitrary: fc.constant(null), weight: 1 },
      );
    case 'array':
      return mixed(depth > 2 ? fc.constant([]) : fc.array(gen(def.element!, odd, depth + 1), { maxLength: 3 }));
    case 'record': {
      const keys = odd
        ? fc.constantFrom('final', 'ptp_date', '1', '__proto__', 'x')
        : fc.constantFrom('final', 'ptp_date', '1', 'x');
      return mixed(objectText(fc.array(fc.tuple(keys, gen(def.valueType!, odd, depth + 1)), { maxLength: 3 })));
    }
    case 'object': {
      const shape = def.shape ?? {};
      // A required key is absent only in odd values (else a deep schema's values were almost never valid).
      const declared = Object.keys(shape).map((k) => {
        const entry = gen(shape[k]!, odd, depth + 1).map((v) => [k, v] as [string, unknown]);
        return odd || defOf(shape[k]!).type === 'optional' ? fc.option(entry, { freq: 6 }) : entry;
      });
      const names = odd
        ? fc.constantFrom('extra1', 'Extra', '__proto__', 'toString', 'constructor', '0', 'id')
        : fc.constantFrom('extra1', 'Extra', '0');
      const extra = fc.array(fc.tuple(names, fc.oneof(junk, fc.string({ maxLength: 3 }))), { maxLength: 2 });
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
      return mixed(objectText(entries));
    }
    default:
      return junk;
  }
}

const values = (schema: z.ZodType) => fc.oneof(gen(schema, false), gen(schema, true));

/** An object built as JSON text and parsed, as the splitter's records are: `__proto__` becomes an own key, a repeated key keeps its last value. */
function objectText(entries: fc.Arbitrary<Array<[string, unknown]>>): fc.Arbitrary<unknown> {
  return entries.map((list) =>
    JSON.parse(`{${list.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`),
  );
}

/** Every key in order and every leaf by Object.is, as a comparable tree. */
function layout(v: unknown): unknown {
  if (Array.isArray(v)) return ['array', v.map(layout)];
  if (typeof v === 'object' && v !== null)
    return ['object', Object.keys(v).map((k) => [k, layout((v as Record<string, unknown>)[k])])];
  return ['leaf', typeof v, Object.is(v, -0) ? '-0' : String(v)];
}

function holdsFor(
  name: string,
  schema: z.ZodType,
  value: fc.Arbitrary<unknown>,
  { fromSchema = true, refusals = true, vouchedAtLeast = RUNS / 20 } = {},
) {
  it(`${name}: vouches only for what zod accepts, as zod would hand it out`, () => {
    const quick = quickCheckOf(schema);
    let vouched = 0;
    let refused = 0;
    fc.assert(
      fc.property(value, (v) => {
        const parsed = schema.safeParse(v);
        if (!parsed.success) refused++;
        if (!quick(v)) return;
        vouched++;
        expect(parsed.success).toBe(true);
        expect(layout(v)).toEqual(layout(parsed.data));
      }),
      { numRuns: RUNS },
    );
    // Not vacuous: values zod refuses were tried, and (generated from the schema) values vouched for.
    if (refusals) expect(refused).toBeGreaterThan(0);
    if (fromSchema) expect(vouched).toBeGreaterThanOrEqual(vouchedAtLeast);
  });
}

const answers = await Promise.all(
  (Object.keys(ANSWER_SCHEMAS) as AnswerName[]).map(async (n) => [n, await ANSWER_SCHEMAS[n]()] as const),
);

describe('quick check against the zod schema', () => {
  holdsFor('call record', callRecordSchema, values(callRecordSchema));
  holdsFor('workflow call detail', workflowCallDetailSchema, values(workflowCallDetailSchema));
  const small = z.looseObject({
    a: z.number(),
    b: z.string().optional(),
    c: z.array(z.number().int()).nullable(),
    d: z.record(z.string(), z.boolean().nullish()).nullish(),
  });
  holdsFor('small loose object', small, values(small));
  holdsFor('small loose object, any JSON', small, fc.jsonValue(), { fromSchema: false });
  holdsFor('call record, any JSON', callRecordSchema, fc.oneof(fc.jsonValue(), values(callRecordSchema)), {
    fromSchema: false,
  });

  holdsFor('string of at least 2', z.string().min(2), fc.oneof(fc.string({ maxLength: 4 }), junk));
  const time = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  const times = fc.oneof(
    fc
      .date({ noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2099-12-31') })
      .map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
    fc.string({ maxLength: 22 }),
    fc.constantFrom('2026-11-20T08:00:00Z\n', '2026-11-20 08:00:00', '２０２６-11-20T08:00:00Z'),
    junk,
  );
  holdsFor('string matching a pattern', time, times);

  // Every cloud answer a command reads (src/schemas/answers.ts): most are vouched for without zod.
  for (const [name, schema] of answers) {
    // A part the plan does not know (a time's pattern, an enum) is never vouched for where required.
    const knownThroughout = !JSON.stringify(planOf(schema)).includes('"never"');
    // (A deep schema's generated values are valid less often: 40 to 100 of 400 here.)
    holdsFor(`answer ${name}`, schema, values(schema), {
      fromSchema: knownThroughout,
      vouchedAtLeast: RUNS / 40,
      refusals: name !== 'unknown',
    });
  }

  it('vouches for every record in the spec order with valid values (the common case is fast)', () => {
    const quick = quickCheckOf(callRecordSchema);
    const record = {
      id: 1,
      RobotID: 'rb',
      CalleeName: 'n',
      CalleeGender: null,
      CalleeNumber: '+62',
      CallStartTime: '2026-11-20T08:00:00Z',
      CallEndTime: null,
      Status: 'answered',
      Intention: 'A',
      intention_description: 'd',
      CallID: 'c',
      CallTimes: 1,
      Comments: '',
      BorrowedDate: '',
      DueDate: '',
      BorrowedAmount: '1',
      TotalOwingAmount: '2',
      CurrencyUnit: 'IDR',
      PlatformName: 'p',
      RingType: 'normal',
      HangupType: 'ByRobot',
      ExtraA: '',
      ExtraB: '',
      ExtraC: '',
      AsrResult: [{ time: '1', robottext: 'r', text: 't', extra: 1 }],
      EventLabel: { final: 'PTP' },
      RingTime: 5,
      TalkRound: 2,
      RedailCall: [{ CallID: 'r', RingTime: 3 }],
      NerSlots: {},
      call_notes: '',
      caller_number: '+62',
      spare1: 1,
      spare2: { x: [1] },
    };
    expect(quick(JSON.parse(JSON.stringify(record)))).toBe(true);
    // Optional fields absent: still vouched for.
    expect(quick({ id: 2, CalleeNumber: '+62', extra: null })).toBe(true);
  });

  it('leaves to zod what it cannot vouch for, whatever zod then says', () => {
    const quick = quickCheckOf(callRecordSchema);
    const base = { id: 1, CalleeNumber: '+62' };
    const cases: unknown[] = [
      { CalleeNumber: '+62', id: 1 }, // zod accepts, but would reorder the keys
      { ...base, TalkRound: 1.5 },
      { ...base, id: 2 ** 53 },
      { ...base, id: Number.NaN },
      { ...base, id: Number.POSITIVE_INFINITY },
      { ...base, RingTime: undefined, extra: 1, TalkRound: 1 }, // a declared key after an unknown one
      JSON.parse('{"id":1,"CalleeNumber":"+62","__proto__":{"x":1}}'),
      { ...base, EventLabel: JSON.parse('{"__proto__":"x"}') },
      Object.assign(Object.create(null), base),
      [base],
      null,
      'record',
    ];
    for (const v of cases) expect(quick(v), JSON.stringify(v)).toBe(false);
  });

  it('vouches for nothing a schema part it does not know checks', () => {
    expect(quickCheckOf(z.string().max(3))('x')).toBe(false);
    expect(quickCheckOf(z.string().min(1).max(3))('x')).toBe(false);
    expect(quickCheckOf(z.string().regex(/a/g))('a')).toBe(false); // a global pattern keeps state
    expect(quickCheckOf(z.string().regex(/a/).min(1))('a')).toBe(false);
    expect(quickCheckOf(z.enum(['a']))('a')).toBe(false);
    expect(quickCheckOf(z.object({ a: z.string() }))({ a: 'x' })).toBe(true);
    expect(quickCheckOf(z.object({ a: z.string() }))({ a: 'x', b: 1 })).toBe(false); // zod strips b
    expect(quickCheckOf(z.strictObject({ a: z.string() }))({ a: 'x', b: 1 })).toBe(false);
    expect(quickCheckOf(z.looseObject({ toString: z.string().optional() }))({})).toBe(false);
    expect(quickCheckOf(z.string().transform((s) => s.length))('x')).toBe(false);
  });

  it('counts a minimum length in code points, as zod does (a surrogate pair is one)', () => {
    const min2 = z.string().min(2);
    for (const v of ['\u{1F600}', '\u{1F600}\u{1F600}', '\u{1F600}a', '\ud83d\ud83d', 'ab', 'a'])
      expect(quickCheckOf(min2)(v), JSON.stringify(v)).toBe(min2.safeParse(v).success);
  });

  it("vouches for nothing a format schema checks (zod 4's z.int(), z.email()...: the check is the schema itself)", () => {
    const refused: Array<[z.ZodType, unknown]> = [
      [z.int(), 1.5],
      [z.int32(), 2 ** 40],
      [z.uint32(), -1],
      [z.float32(), 1e40],
      [z.email(), 'x'],
      [z.uuid(), 'x'],
      [z.url(), 'x'],
      [z.iso.datetime(), '2026-11-20'],
      [z.e164(), 'x'],
      [z.object({ a: z.string().exactOptional() }), { a: undefined }],
    ];
    for (const [schema, value] of refused) {
      expect(schema.safeParse(value).success).toBe(false);
      expect(quickCheckOf(schema)(value), JSON.stringify(planOf(schema))).toBe(false);
    }
    // The format a plan knows is still vouched for, and an absent exact-optional key too.
    expect(quickCheckOf(z.int())(3)).toBe(true);
    expect(quickCheckOf(z.object({ a: z.string().exactOptional() }))({})).toBe(true);
  });
});
