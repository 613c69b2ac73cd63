import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CloudClient } from '../../src/api/client.js';
import { getTask, getWorkflowTask } from '../../src/api/cloud.js';
import { Transport } from '../../src/api/transport.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { fixtureServer } from '../report/fixture-server.js';

// `task detail --json` and `workflow task-detail --json` stream the answer (src/output/json-stream.ts):
// the bytes must be those of the whole answer read, checked and printed as before (getTask /
// getWorkflowTask, then JSON.stringify(value, null, 2)), and so must the warnings and errors.

/** What the previous reading printed: the whole answer checked, then written at once. */
async function before(env: Record<string, string>, kind: 'task' | 'workflow', id: string) {
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

const argvOf = (kind: 'task' | 'workflow', id: string) =>
  kind === 'task' ? ['task', 'detail', id, '--json'] : ['workflow', 'task-detail', id, '--json'];

/** Runs the streaming command and holds it to what `before` printed. */
async function same(env: Record<string, string>, kind: 'task' | 'workflow', id: string) {
  const old = await before(env, kind, id);
  const now = await runCli(argvOf(kind, id), { env });
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
  return { old, now };
}

describe("the sandbox's tasks", () => {
  const fixture = useSandbox();
  it('every calling task and every workflow task, byte for byte', async () => {
    const { sandbox, env } = fixture;
    const tasks = [...sandbox.state.tasks.keys()];
    const workflowTasks = [...sandbox.state.workflowTasks.keys()];
    expect(tasks.length).toBeGreaterThan(5);
    expect(workflowTasks.length).toBeGreaterThan(0);
    for (const [kind, ids] of [
      ['task', tasks],
      ['workflow', workflowTasks],
    ] as const) {
      for (const id of ids) {
        const { now } = await same(env, kind, id);
        expect(now.out.length).toBeGreaterThan(100);
      }
    }
  });
});

/** Keys in the order given, `__proto__` included as an own key (as JSON.parse makes it). */
const objectOf = (entries: Array<[string, unknown]>) =>
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

const RECORD_FIELDS: Array<[string, 'string' | 'int' | 'records' | 'map']> = [
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
const WORKFLOW_FIELDS: Array<[string, 'string' | 'int' | 'records' | 'map']> = [
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

const headFields = (kind: 'task' | 'workflow'): Array<[string, unknown]> =>
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
const answerOf = (kind: 'task' | 'workflow') =>
  fc
    .record({
      records: fc.array(recordOf(kind === 'task' ? RECORD_FIELDS : WORKFLOW_FIELDS), { maxLength: 25 }),
      // Where the array goes among the head's fields (the end, most often, as the service sends it).
      at: fc.oneof({ weight: 4, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat(9) }),
      extraBefore: fc.option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined }),
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

describe('generated answers, odd records included', () => {
  for (const kind of ['task', 'workflow'] as const) {
    it(`${argvOf(kind, 'ID').slice(0, 2).join(' ')} --json: the same bytes, warnings and errors as the whole answer read`, async () => {
      let body = '';
      const path = kind === 'task' ? '/service/cloud/detail' : '/service/cloud/workflow/taskdetail';
      const server = await fixtureServer({ [path]: () => body });
      const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
      const seen = { ok: 0, warned: 0, refused: 0, unstreamable: 0 };
      try {
        await fc.assert(
          fc.asyncProperty(answerOf(kind), async (answer) => {
            body = answer;
            const { old, now } = await same(env, kind, 'ID').catch((error: unknown) => {
              throw error;
            });
            if (old.error === undefined) seen.ok++;
            else seen.refused++;
            if (old.warnings.length) seen.warned++;
            void now;
          }),
          { numRuns: 60, seed: kind === 'task' ? 26 : 27 },
        );
      } finally {
        await server.close();
      }
      // Not vacuous: answers shown, records left out with a warning, answers refused.
      expect(seen.ok).toBeGreaterThan(10);
      expect(seen.warned).toBeGreaterThan(3);
      expect(seen.refused).toBeGreaterThan(3);
      void seen.unstreamable;
    }, 60_000);
  }
});

/** A task of `n` records, each long enough that the answer comes in many pieces. */
function taskBody(n: number): string {
  const detail = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    CalleeNumber: `+5511900000${i}`,
    Comments: 'x'.repeat(300),
  }));
  return JSON.stringify({ data: { ...Object.fromEntries(headFields('task')), detail }, status: 'OK', code: 200 });
}

/** Records written to a `--json` output: objects at the array's indentation. */
const recordsIn = (out: string) => out.split('\n').filter((l) => l === '    {').length;

describe('a connection cut mid-answer', () => {
  it('the output lacks its closing brackets, and the run exits 5 saying how many records were written', async () => {
    // Every answer loses its connection half-way through its body (Content-Length not reached).
    const server = await fixtureServer({ '/service/cloud/detail': () => taskBody(200) }, { cutFirst: 99 });
    try {
      const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
      const r = await runCli(['task', 'detail', 'T-GEN', '--json'], { env });
      expect(r.code).toBe(5);
      const written = recordsIn(r.out);
      expect(written).toBeGreaterThan(10);
      expect(written).toBeLessThan(200);
      expect(r.err).toContain(`the connection was lost after ${written} records had been written`);
      expect(() => JSON.parse(r.out)).toThrow();
      expect(r.out.trimEnd().endsWith('}')).toBe(true); // the last record is whole...
      expect(r.out).not.toMatch(/\n {2}\]\n\}\n$/); // ...the array and the task are not closed
      // Once records are out, the request is not tried a third time.
      expect(server.hits).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it('an answer that ends inside its JSON (no length said, the connection closed cleanly) is a cut too', async () => {
    const body = Buffer.from(taskBody(200));
    const { createServer } = await import('node:http');
    let hits = 0;
    const server = createServer((req, res) => {
      hits++;
      req.resume();
      // Chunked, then ended early: nothing at the HTTP level says the body is short.
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      res.write(body.subarray(0, 20_000));
      setTimeout(() => res.end(body.subarray(20_000, 40_000)), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as import('node:net').AddressInfo).port;
      const env = {
        CALLCTL_BASE_URL: `http://127.0.0.1:${port}`,
        CALLCTL_TOKEN: 'tok',
        CALLCTL_CONFIG_DIR: tempConfigDir(),
      };
      const r = await runCli(['task', 'detail', 'T-GEN', '--json'], { env });
      expect(r.code).toBe(5);
      const written = recordsIn(r.out);
      expect(written).toBeGreaterThan(10);
      expect(r.err).toContain(`after ${written} records had been written`);
      expect(() => JSON.parse(r.out)).toThrow();
      expect(hits).toBe(2);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('fields the output shows before the records', () => {
  it('held to the end when a required one comes after the records: the same bytes, written whole', async () => {
    const head = headFields('task');
    const detail = [{ id: 1, CalleeNumber: '+15550001' }];
    const data = Object.fromEntries([...head.slice(0, 3), ['detail', detail], ...head.slice(3)]);
    const server = await fixtureServer({
      '/service/cloud/detail': () => JSON.stringify({ data, status: 'OK', code: 200 }),
    });
    try {
      const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
      const { now } = await same(env, 'task', 'T-GEN');
      expect(JSON.parse(now.out).detail).toEqual(detail);
    } finally {
      await server.close();
    }
  });

  it('an optional one arriving after the records, once they are out: an error, never other bytes', async () => {
    const detail = [{ id: 1, callee: '+15550001' }];
    const head = headFields('workflow').filter(([k]) => k !== 'robot_hash');
    const data = Object.fromEntries([...head, ['details', detail], ['robot_hash', 'late']]);
    const server = await fixtureServer({
      '/service/cloud/workflow/taskdetail': () => JSON.stringify({ data, status: 'OK', code: 200 }),
    });
    try {
      const env = { CALLCTL_BASE_URL: server.url, CALLCTL_TOKEN: 'tok', CALLCTL_CONFIG_DIR: tempConfigDir() };
      const r = await runCli(argvOf('workflow', 'WT-GEN'), { env });
      expect(r.code).toBe(1);
      expect(r.err).toContain('a field shown before "details" came after it');
      expect(() => JSON.parse(r.out)).toThrow();
    } finally {
      await server.close();
    }
  });
});

describe('workflow list --all --json', () => {
  const fixture = useSandbox();
  it('pages into the output as it goes: the bytes of the whole list read at once', async () => {
    const { env, sandbox } = fixture;
    expect(sandbox.state.workflows.size).toBeGreaterThan(7);
    expect(sandbox.state.workflows.size).toBeLessThan(100);
    const onePage = await runCli(['workflow', 'list', '--size', '100', '--json'], { env });
    for (const size of ['1', '3', '7', '100']) {
      const walked = await runCli(['workflow', 'list', '--all', '--size', size, '--json'], { env });
      expect(walked.code).toBe(0);
      expect(walked.out).toBe(onePage.out);
    }
  });
});

describe('api GET /service/cloud/workflow/instancelist --paginate', () => {
  it('pages into the output: the bytes of the whole list redacted and indented at once', async () => {
    const { redact } = await import('../../src/redact.js');
    const all = Array.from({ length: 7 }, (_, i) => ({
      workflow_id: `wf-${i}`,
      name: `list "${i}" é`,
      token: `not-for-eyes-${i}`, // a secret key's value: redacted in the output
      note: i === 3 ? 'http://user:pw-123@example.test/x' : null,
      total: i * 1.5,
    }));
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      req.resume();
      const q = new URL(req.url!, 'http://x').searchParams;
      const page = Number(q.get('page'));
      const lists = all.slice((page - 1) * 3, page * 3);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 200, status: 'OK', data: { lists, count: all.length } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as import('node:net').AddressInfo).port;
      const env = {
        CALLCTL_BASE_URL: `http://127.0.0.1:${port}`,
        CALLCTL_TOKEN: 'tok-123456',
        CALLCTL_CONFIG_DIR: tempConfigDir(),
      };
      const r = await runCli(['api', 'GET', '/service/cloud/workflow/instancelist', '--paginate', '-f', 'size=3'], {
        env,
      });
      expect(r.code, r.err).toBe(0);
      // What the list printed whole gave (src/commands/api/run.ts before it streamed).
      const whole = `${JSON.stringify(JSON.parse(redact(JSON.stringify({ lists: all, count: all.length }), ['tok-123456'])), null, 2)}\n`;
      expect(r.out).toBe(whole);
      expect(r.out).not.toContain('not-for-eyes');
      expect(r.out).not.toContain('pw-123');
      expect(JSON.parse(r.out).lists).toHaveLength(7);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
