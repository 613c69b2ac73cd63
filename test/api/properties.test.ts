import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { startPeer, type Peer, type PeerAnswer, type PeerRequest } from '../helpers/peer.js';
import { templatePeerEnv, templateSend } from '../helpers/template-send.js';
import { tempDir, writeIn } from '../reach/helpers.js';

/**
 * Property tests: envelopes, pages and push/template answers generated from what the spec allows
 * (and what it does not), served over loopback by a peer whose answer each case sets. Invariants,
 * not examples: no crash or stack trace; a documented exit code that follows the answer; the
 * service's own text on stderr; nothing that places a call or sends a message goes out twice.
 */

let peer: Peer;
let answer: (req: PeerRequest) => PeerAnswer = () => ({ status: 500 });
beforeAll(async () => {
  peer = await startPeer((req) => answer(req));
});
afterAll(() => peer.close());

const TOKEN = 'tok-property-00000001';
const STACK = /\n\s+at [^\n]+\(/;
const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);
/**
 * fc.assert of a property; with PROPERTY_CENSUS=1 (used once against the previous client for the
 * report) it instead runs `runs` generated cases and prints how many fail.
 */
async function holds<T extends unknown[]>(
  name: string,
  arbs: { [K in keyof T]: fc.Arbitrary<T[K]> },
  predicate: (...args: T) => Promise<void>,
  runs = RUNS,
): Promise<void> {
  const tuple = fc.tuple(...(arbs as fc.Arbitrary<unknown>[])) as unknown as fc.Arbitrary<T>;
  if (process.env.PROPERTY_CENSUS) {
    let failed = 0;
    for (const args of fc.sample(tuple, { numRuns: runs, seed: 42 })) {
      try {
        await predicate(...args);
      } catch {
        failed++;
      }
    }
    console.log(`CENSUS ${name}: ${failed} of ${runs} generated cases fail`);
    return;
  }
  await fc.assert(
    fc.asyncProperty(tuple, (args) => predicate(...args)),
    { numRuns: runs },
  );
}

const cloud = (argv: string[]) =>
  runCli(argv, {
    env: {
      CALLCTL_BASE_URL: peer.url,
      CALLCTL_TOKEN: TOKEN,
      CALLCTL_CONFIG_DIR: tempConfigDir(),
      XDG_STATE_HOME: tempConfigDir(),
    },
  });
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

const robot = { RobotMethod: 'single', RobotID: 'r-1', Voice: 'female' };
const instance = (id: string) => ({
  workflow_id: id,
  name: id,
  template_name: 't',
  start_time: null,
  end_time: '2026-11-01T09:00:00Z',
  total: 1,
  status: 'finished',
  create_time: '2026-11-01T07:00:00Z',
});
/** Each read command with a `data` the spec allows. */
const COMMANDS: Array<{ argv: string[]; data: unknown }> = [
  { argv: ['robots'], data: [robot] },
  { argv: ['plan', 'status', 'P'], data: { PlanName: 'P', PlanStatus: 'calling' } },
  { argv: ['plan', 'detail', 'P'], data: { PlanName: 'P', PlanDetails: [] } },
  { argv: ['workflow', 'list'], data: { lists: [instance('W-1')], count: 1 } },
  {
    argv: ['workflow', 'task-detail', 'T-1'],
    data: {
      task_id: 'T-1',
      task_name: 't',
      status: 'finished',
      workflow_id: 'W',
      workflow_name: 'w',
      nodetask_id: 'n',
      nodetask_name: 'n',
      details: [],
    },
  },
  {
    argv: ['workflow', 'verify-push', '--workflow-id', 'W', '--node-id', 'N', '--callee', '+6281234567001'],
    data: {
      workflow_id: 'W',
      workflow_name: 'w',
      node_id: 'N',
      node_name: 'n',
      callee: {},
      custom_attribute: {},
      call: { intention: 'A' },
    },
  },
];

const statusText = fc.oneof(
  fc.constant('OK'),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('', '  ', 'token expired\nplease log in', 'workflow not found: W-1'),
);
const code = fc.oneof(
  fc.constantFrom(200, 401, 403, 500, 404, 429, 503, 0, 500100),
  fc.integer({ min: -1000, max: 1_000_000 }),
);
const httpStatus = fc.constantFrom(200, 200, 200, 400, 401, 403, 404, 409, 429, 500, 502, 503);

describe('properties of the cloud client', () => {
  it('any envelope at any HTTP status: a documented exit code that follows the answer, one line with the service text, no stack', async () => {
    await holds(
      'envelopes',
      [
        fc.constantFrom(...COMMANDS),
        httpStatus,
        code,
        statusText,
        fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
        fc.boolean(),
      ],
      async (command, status, envCode, text, message, withData) => {
        const body: Record<string, unknown> = {
          status: text,
          code: envCode,
          ...(withData ? { data: command.data } : {}),
        };
        if (message !== undefined) body.message = message;
        answer = () => ({ status, body });
        const res = await cloud(command.argv);
        expect(res.err).not.toMatch(STACK);
        const rejected = [401, 403].includes(status) || [401, 403].includes(envCode);
        const transient =
          [408, 429].includes(status) ||
          (status >= 500 && status <= 599) ||
          [408, 429].includes(envCode) ||
          (envCode >= 500 && envCode <= 599);
        const ok = status === 200 && envCode === 200 && text === 'OK' && withData;
        const expected = rejected ? 4 : transient ? 5 : ok ? 0 : 1;
        // code 200 with OK but no data: a schema complaint (exit 1) is the one other outcome.
        expect(res.code, res.err).toBe(expected);
        if (res.code !== 0) {
          expect(res.err.trim().split('\n'), res.err).toHaveLength(1);
          const said = oneLine(text);
          if (said && !(envCode === 200 && said === 'OK')) expect(oneLine(res.err)).toContain(said);
          expect(res.err).toMatch(/(GET|POST) \/service\/cloud\//);
        }
        if (res.code === 5) expect(res.err).toContain('run again');
        if (res.code === 1) expect(res.err).not.toContain('run again');
      },
      RUNS,
    );
  });

  it('anything at all as a body: no crash, a documented exit code', async () => {
    await holds(
      'any body',
      [
        httpStatus,
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
        ),
      ],
      async (status, text) => {
        answer = () => ({ status, body: text });
        const res = await cloud(['robots']);
        expect(res.err).not.toMatch(STACK);
        expect([0, 1, 4, 5]).toContain(res.code);
        if (res.code !== 0) expect(res.err.trim().split('\n')).toHaveLength(1);
      },
      RUNS,
    );
  });

  it('enumerated values inside and outside the spec lists, absent or null: every record is shown', async () => {
    const value = <T extends string>(allowed: readonly T[]) =>
      fc.oneof(fc.constantFrom(...allowed), fc.string({ maxLength: 12 }), fc.constant(null), fc.constant(undefined));
    const robotArb = fc.record({
      RobotMethod: value(['single', 'group']),
      Tone: value(['Polite', 'Natural', 'Pressing', 'Harsh', 'Fierce']),
      Voice: value(['male', 'female', '']),
      RobotName: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
    });
    await holds(
      'enum values',
      [fc.array(robotArb, { minLength: 1, maxLength: 6 })],
      async (robots) => {
        const data = robots.map((r, i) => ({ ...r, RobotID: `robot-${i}` }));
        // A RobotMethod is required: null or absent makes that record odd (left out with a warning).
        const odd = data.filter((r) => r.RobotMethod === null || r.RobotMethod === undefined);
        answer = () => ({ body: { data, status: 'OK', code: 200 } });
        const res = await cloud(['robots', '--json']);
        expect(res.err).not.toMatch(STACK);
        if (odd.length === data.length) {
          expect(res.code).toBe(1);
          return;
        }
        expect(res.code, res.err).toBe(0);
        const shown = (JSON.parse(res.out) as Array<{ RobotID: string }>).map((r) => r.RobotID);
        expect(shown).toEqual(data.filter((r) => !odd.includes(r)).map((r) => r.RobotID));
        for (const r of odd) expect(res.err).toContain(`data.${data.indexOf(r)}.RobotMethod`);
      },
      RUNS,
    );
  });
});

describe('properties of workflow list --all', () => {
  it('any page size served, overlapping or repeated pages: the distinct instances held, or a clear error; never a loop', async () => {
    await holds(
      'pages',
      [
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 15 }),
        fc.constantFrom('paged', 'ignores-page', 'overlap'),
        fc.integer({ min: -3, max: 3 }),
      ],
      async (total, cap, mode, countSkew) => {
        const ids = Array.from({ length: total }, (_, i) => `W-${i + 1}`);
        const count = Math.max(0, total + countSkew);
        let requests = 0;
        answer = (req) => {
          requests++;
          const size = Math.min(Number(req.query.get('size') ?? 10), cap);
          const page = mode === 'ignores-page' ? 1 : Number(req.query.get('page') ?? 1);
          // overlap: each page starts one item back, repeating the last item of the page before.
          const start = mode === 'overlap' ? Math.max(0, (page - 1) * (size - 1)) : (page - 1) * size;
          return {
            body: { data: { lists: ids.slice(start, start + size).map(instance), count }, status: 'OK', code: 200 },
          };
        };
        const res = await cloud(['workflow', 'list', '--all', '--json']);
        expect(res.err).not.toMatch(STACK);
        expect(requests).toBeLessThanOrEqual(total + 2);
        if (res.code === 0) {
          const listed = (JSON.parse(res.out) as { lists: Array<{ workflow_id: string }> }).lists.map(
            (w) => w.workflow_id,
          );
          expect(new Set(listed).size).toBe(listed.length);
          // Everything the peer holds, unless count told less than it holds.
          if (count >= total) expect(listed).toEqual(ids);
          else expect(listed.length).toBeGreaterThanOrEqual(Math.min(count, total));
        } else {
          expect(res.code).toBe(1);
          // Only a service that serves again what it served (ignoring `page`, or an overlap that
          // has nothing new left) while count says there is more.
          expect(mode === 'ignores-page' || (mode === 'overlap' && (cap === 1 || count > total)), mode).toBe(true);
          expect(count).toBeGreaterThan(Math.min(cap, total));
          expect(res.err).toMatch(/repeated instances already listed/);
        }
      },
      RUNS,
    );
  });
});

/** A push or template answer: the spec's shape with fields missing or null, other codes, or not JSON. */
const sendAnswer = fc.oneof(
  fc.record(
    {
      code: fc.oneof(fc.constantFrom(0, 200, 200, 400, 401, 500), fc.integer(), fc.constant(null), fc.constant('200')),
      message: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null)),
      show_err: fc.oneof(fc.boolean(), fc.constant(null)),
      timestamp: fc.integer(),
      body: fc.oneof(fc.constant({}), fc.constant(null), fc.constant('x')),
      trace_id: fc.oneof(fc.string({ minLength: 1, maxLength: 8 }), fc.constant(null)),
      request_id: fc.string({ minLength: 1, maxLength: 8 }),
      data: fc.oneof(fc.record({ task_id: fc.string({ minLength: 1, maxLength: 8 }) }), fc.constant(null)),
    },
    { requiredKeys: [] },
  ),
  fc.constantFrom('OK', '', '<html>accepted</html>', 'null', '[]'),
);

/** Whether callctl must take an answer as accepted: HTTP 2xx unless the code says otherwise. */
function accepted(status: number, body: unknown): boolean {
  if (status < 200 || status > 299) return false;
  if (typeof body === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return true;
    }
    body = parsed;
  }
  const o = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const c =
    typeof o.code === 'number'
      ? o.code
      : typeof o.code === 'string' && /^-?\d+$/.test(o.code)
        ? Number(o.code)
        : undefined;
  return c === undefined || c === 0 || c === 200;
}

describe('properties of push and template send', () => {
  const sendStatus = fc.constantFrom(200, 200, 201, 202, 400, 401, 403, 500, 503);

  it('one push, any answer: sent once and never again; accepted is exit 0, a refusal exit 1 with its text', async () => {
    await holds(
      'push',
      [sendStatus, sendAnswer],
      async (status, body) => {
        let received = 0;
        answer = () => {
          received++;
          return { status, body };
        };
        const res = await runCli(['push', '--caller-id', '+6281234567001', '--yes'], {
          env: {
            CALLCTL_FLEX_URL: peer.url,
            CALLCTL_PUSH_TOKEN: 'ptk-property-12345',
            CALLCTL_CONFIG_DIR: tempConfigDir(),
            XDG_STATE_HOME: tempConfigDir(),
          },
        });
        expect(received).toBe(1);
        expect(res.err).not.toMatch(STACK);
        expect(res.err).not.toContain('ptk-property-12345');
        if (accepted(status, body)) expect(res.code, res.err).toBe(0);
        else {
          expect([1, 5]).toContain(res.code);
          const m = typeof body === 'object' && typeof body.message === 'string' ? oneLine(body.message) : '';
          if (m) expect(oneLine(res.err)).toContain(m);
        }
      },
      RUNS,
    );
  });

  it('one template message, any answer: sent once; accepted is exit 0', async () => {
    await holds(
      'template',
      [sendStatus, sendAnswer],
      async (status, body) => {
        let received = 0;
        answer = () => {
          received++;
          return { status, body };
        };
        const res = await runCli(templateSend(), { env: templatePeerEnv(peer.url) });
        expect(received).toBe(1);
        expect(res.err).not.toMatch(STACK);
        if (accepted(status, body)) expect(res.code, res.err).toBe(0);
        else expect([1, 5]).toContain(res.code);
      },
      RUNS,
    );
  });

  it('a CSV run of any answers, then a re-run with --retry-failed: an accepted row is never sent twice', async () => {
    await holds(
      'push csv',
      [fc.array(fc.tuple(sendStatus, sendAnswer), { minLength: 1, maxLength: 6 })],
      async (answers) => {
        const callers = answers.map((_, i) => `+62810000000${i}`);
        const byCaller = new Map(callers.map((c, i) => [c, answers[i]!]));
        const received = new Map<string, number>();
        answer = (req) => {
          const caller = (JSON.parse(req.body) as { caller_id: string }).caller_id;
          received.set(caller, (received.get(caller) ?? 0) + 1);
          const [status, body] = byCaller.get(caller)!;
          return { status, body };
        };
        const file = writeIn(tempDir(), 'callers.csv', `caller_id\n${callers.join('\n')}\n`);
        const env = {
          CALLCTL_FLEX_URL: peer.url,
          CALLCTL_PUSH_TOKEN: 'ptk-property-12345',
          CALLCTL_CONFIG_DIR: tempConfigDir(),
          XDG_STATE_HOME: tempConfigDir(),
        };
        const first = await runCli(['push', '--csv', file, '--yes'], { env });
        const again = await runCli(['push', '--csv', file, '--yes', '--retry-failed'], { env });
        for (const r of [first, again]) {
          expect(r.err).not.toMatch(STACK);
          expect([0, 1, 5]).toContain(r.code);
        }
        for (const [caller, [status, body]] of byCaller) {
          if (accepted(status, body)) expect(received.get(caller) ?? 0, caller).toBeLessThanOrEqual(1);
        }
      },
      Math.ceil(RUNS / 3),
    );
  });
});
