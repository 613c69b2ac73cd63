/**
 * Answers of `task detail` and `workflow task-detail` for the tests of their streamed `--json`
 * (test/commands/json-stream*.test.ts): what the whole answer read printed, and generated answers
 * with odd records, any spacing and fields in any place.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { CloudClient } from '../../src/api/client.js';
import { getTask, getWorkflowTask } from '../../src/api/cloud.js';
import { Transport } from '../../src/api/transport.js';

/** What the previous reading printed: the whole answer checked, then written at once. */
export async function wholeAnswer(env: Record<string, string>, kind: 'task' | 'workflow', id: string) {
  const warnings: string[] = [];
  const client = new CloudClient(
    new Transport({ userAgent: 'test', timeoutMs: 10_000, sleep: async () => {}, secrets: () => [] }),
    { baseUrl: env.CALLCTL_BASE_URL!, token: env.CALLCTL_TOKEN!, onWarning: (w) => warnings.push(w) },
  );
  try {
    const value = await (kind === 'task' ? getTask(client, id) : getWorkflowTask(client, id));
    return { out: `${JSON.stringify(value, null, 2)}\n`, warnings, error: undefined };
  } catch (error) {
    return { out: '', warnings, error: (error as Error).message };
  } finally {
    await client.transport.close();
  }
}

/**
 * Holds a streamed run (`now`: its exit code, stdout and stderr) to what the whole answer read
 * printed (`old`, from wholeAnswer): the same warnings, and the same bytes or the same error.
 */
export function expectSame(
  old: Awaited<ReturnType<typeof wholeAnswer>>,
  now: { code: number | null; out: string; err: string },
): void {
  const warned = now.err
    .split('\n')
    .filter((l) => l.startsWith('warning: '))
    .map((l) => l.slice('warning: '.length));
  expect(warned).toEqual(old.warnings);
  if (old.error === undefined) {
    expect(now.err.split('\n').filter((l) => l && !l.startsWith('warning: '))).toEqual([]);
    expect(now.code).toBe(0);
    expect(now.out).toBe(old.out);
  } else {
    expect(now.code).toBe(1);
    expect(now.err).toContain(`error: ${old.error}`);
    // Whatever was written before the answer was refused does not look whole.
    if (now.out) expect(() => JSON.parse(now.out)).toThrow();
  }
}

export const argvOf = (kind: 'task' | 'workflow', id: string) =>
  kind === 'task' ? ['task', 'detail', id, '--json'] : ['workflow', 'task-detail', id, '--json'];

/** Keys in the order given, `__proto__` included as an own key (as JSON.parse makes it). */
export const objectOf = (entries: Array<[string, unknown]>) =>
  JSON.parse(`{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`) as object;

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.constantFrom('', '"quoted" \\ back', '\u2028\u0000\u001f', '\ud83d', '😀 é', '</script>', 'a\r\nb'),
);
const odd = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(1.5, -0, 1e21, 5e-7, '12', true, null, [], {}));
/** A value for a declared field: mostly one its schema takes, sometimes one it refuses. */
const fieldValue = (kind: 'string' | 'int' | 'records' | 'map') => {
  const good =
    kind === 'string'
      ? text
      : kind === 'int'
        ? fc.integer({ min: -5, max: 2 ** 40 })
        : kind === 'map'
          ? fc.dictionary(text, text, { maxKeys: 3 })
          : fc.array(fc.record({ time: text, robottext: text, text }), { maxLength: 2 });
  return fc.oneof(
    { weight: 12, arbitrary: good },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: odd },
  );
};

export const RECORD_FIELDS: Array<[string, 'string' | 'int' | 'records' | 'map']> = [
  ['id', 'int'],
  ['CalleeNumber', 'string'],
  ['CallStartTime', 'string'],
  ['Status', 'string'],
  ['RingType', 'string'],
  ['CallTimes', 'int'],
  ['AsrResult', 'records'],
  ['EventLabel', 'map'],
  ['TalkRound', 'int'],
  ['call_notes', 'string'],
];
export const WORKFLOW_FIELDS: Array<[string, 'string' | 'int' | 'records' | 'map']> = [
  ['id', 'int'],
  ['callee', 'string'],
  ['result', 'string'],
  ['duration', 'int'],
  ['NerSlots', 'map'],
  ['case_id', 'string'],
];

/** A record: some declared fields (in order, or shuffled), unknown ones, now and then not an object at all. */
const recordOf = (fields: typeof RECORD_FIELDS) =>
  fc.oneof(
    {
      weight: 20,
      arbitrary: fc
        .tuple(
          fc.tuple(...fields.map(([, kind]) => fc.option(fieldValue(kind), { nil: undefined, freq: 4 }))),
          fc.array(
            fc.tuple(fc.constantFrom('extra', 'zz', '__proto__', '1', 'détail'), fc.jsonValue({ maxDepth: 2 })),
            {
              maxLength: 2,
            },
          ),
          fc.boolean(),
          fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })),
        )
        .map(([values, extra, shuffle, random]) => {
          const entries: Array<[string, unknown]> = [];
          fields.forEach(([k], i) => {
            // The two required fields are there but now and then.
            if (values[i] !== undefined || i < 2) entries.push([k, values[i] ?? (i === 0 ? 7 : '+15550001')]);
          });
          entries.push(...extra);
          if (shuffle) entries.sort(() => random.next().value - 0.5);
          return objectOf(entries);
        }),
    },
    { weight: 1, arbitrary: odd },
  );

export const headFields = (kind: 'task' | 'workflow'): Array<[string, unknown]> =>
  kind === 'task'
    ? [
        ['TaskID', 'T-GEN'],
        ['TaskName', 'generated'],
        ['RobotMethod', 'single'],
        ['RobotID', 'rb'],
        ['SIPLine', 'sip'],
        ['Status', 'finished'],
        ['ScheduleStartTime', '2026-11-20T08:00:00Z'],
        ['ScheduleEndTime', '2026-11-20T09:00:00Z'],
        ['RepeatInterval', 1],
        ['RepeatNumber', 1],
      ]
    : [
        ['task_id', 'WT-GEN'],
        ['task_name', 'generated'],
        ['status', 'finished'],
        ['robot_hash', 'rb'],
        ['workflow_id', 'W-1'],
        ['workflow_name', 'w'],
        ['nodetask_id', 'N-1'],
        ['nodetask_name', 'n'],
      ];

/** A whole answer: the head's fields, the array somewhere among them, unknown fields, any spacing. */
export const answerOf = (kind: 'task' | 'workflow', { fieldsFirst = false } = {}) =>
  fc
    .record({
      records: fc.array(recordOf(kind === 'task' ? RECORD_FIELDS : WORKFLOW_FIELDS), { maxLength: 25 }),
      // Where the array goes among the head's fields (the end, most often, as the service sends it;
      // always with `fieldsFirst`, and no unknown field before it: an answer written as it comes).
      at: fieldsFirst
        ? fc.constant(-1)
        : fc.oneof({ weight: 4, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat(9) }),
      extraBefore: fieldsFirst ? fc.constant(undefined) : fc.option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined }),
      extraAfter: fc.option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined }),
      badHead: fc.oneof(
        { weight: 8, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(0, 1, 2) },
      ),
      indent: fc.constantFrom(0, 0, 1, '\t'),
    })
    .map(({ records, at, extraBefore, extraAfter, badHead, indent }) => {
      const head = headFields(kind);
      if (badHead !== undefined) head[badHead] = [head[badHead]![0], 5];
      const entries: Array<[string, unknown]> = [...head];
      if (extraBefore !== undefined) entries.unshift(['before', extraBefore]);
      entries.splice(at < 0 ? entries.length : Math.min(at, entries.length), 0, [
        kind === 'task' ? 'detail' : 'details',
        records,
      ]);
      if (extraAfter !== undefined) entries.push(['after', extraAfter]);
      return JSON.stringify({ code: 200, status: 'OK', data: objectOf(entries) }, null, indent);
    });

/** A task of `n` records, each long enough that the answer comes in many pieces. */
export function taskBody(n: number): string {
  const detail = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    CalleeNumber: `+5511900000${i}`,
    Comments: 'x'.repeat(300),
  }));
  return JSON.stringify({ data: { ...Object.fromEntries(headFields('task')), detail }, status: 'OK', code: 200 });
}

/** Records written to a `--json` output: objects at the array's indentation. */
export const recordsIn = (out: string) => out.split('\n').filter((l) => l === '    {').length;
