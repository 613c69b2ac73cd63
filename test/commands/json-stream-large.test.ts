import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callRecordSchema } from '../../src/schemas/task.js';
import { workflowCallDetailSchema } from '../../src/schemas/workflow.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { argvOf, expectSame, headFields, objectOf, recordsIn, wholeAnswer } from '../helpers/json-answers.js';

// `--json` of large and hostile answers (src/api/stream.ts, src/output/json-stream.ts): whatever the
// records hold, and however the answer is cut into pieces on the way, the output is the bytes of
// JSON.stringify(data, null, 2) of the whole answer, with the same warnings and errors.

/**
 * A listener that answers every request with `body()`, written in pieces of the sizes `pieces()`
 * gives, in turn (the whole answer at once when it gives none).
 */
async function serve(body: () => Buffer, pieces: () => number[] = () => []) {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const bytes = body();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
      const sizes = pieces();
      let at = 0;
      for (let k = 0; at < bytes.length && k < sizes.length; k++) {
        res.write(bytes.subarray(at, at + sizes[k]!));
        at += sizes[k]!;
      }
      res.end(bytes.subarray(at));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const envOf = (url: string, token = 'tok-stream-test') => ({
  CALLCTL_BASE_URL: url,
  CALLCTL_TOKEN: token,
  CALLCTL_CONFIG_DIR: tempConfigDir(),
});

/** Strings a reading must step over: escapes of every kind, quotes, brackets, unicode, lone surrogates. */
const unit = fc.constantFrom('a', '"', '\\', '\n', '\t', '\u0000', '\u001f', '/', '[', ']', '{', '}', ',', ':', ' ');
const hostileString = fc.oneof(
  fc.string({ unit: fc.oneof(unit, fc.constantFrom('é', '😀', '\u2028', '\ud800', '\udfff', '\ufeff')) }),
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  // Long runs of escaped text: up to half a megabyte or so.
  fc
    .tuple(fc.string({ unit, minLength: 1, maxLength: 12 }), fc.integer({ min: 1_000, max: 50_000 }))
    .map(([s, n]) => s.repeat(n)),
);
/** A value nested `depth` levels deep, in arrays and objects. */
const nested = fc.tuple(fc.integer({ min: 1, max: 1_000 }), fc.jsonValue({ maxDepth: 1 })).map(([depth, leaf]) => {
  let value: unknown = leaf;
  for (let d = 0; d < depth; d++) value = d % 2 ? [value] : { k: value };
  return value;
});
const hostileValue = fc.oneof(
  hostileString,
  nested,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(1e21, -0, 5e-7, 0.1, 2 ** 53, -1e-300),
  // A huge record's part: many small values.
  fc.integer({ min: 1, max: 50_000 }).map((n) => Array.from({ length: n }, (_, i) => (i % 3 ? `v${i}` : i))),
);
const keyOf = fc.oneof(fc.constantFrom('extra', 'détail', '"', '\\', 'a/b', '1'), hostileString);

/**
 * A record the schema takes as it is: its required fields, then fields of any name and content.
 * Not a declared field out of its place, nor `__proto__`: callctl's checks give those in the
 * schema's order, and without `__proto__`, whole or streamed (test/commands/json-stream.test.ts).
 */
const recordOf = (kind: 'task' | 'workflow') => {
  const declared = new Set(Object.keys((kind === 'task' ? callRecordSchema : workflowCallDetailSchema).shape));
  return fc
    .tuple(fc.nat(), hostileString, fc.array(fc.tuple(keyOf, hostileValue), { maxLength: 3 }))
    .map(([id, text, extra]) =>
      objectOf([
        ['id', id],
        [kind === 'task' ? 'CalleeNumber' : 'callee', '+15550001'],
        [kind === 'task' ? 'Comments' : 'result', text],
        ...extra.filter(([k]) => !declared.has(k) && k !== '__proto__'),
      ]),
    );
};

/**
 * The answer's text as a service may write it: any spacing, and escapes JSON.stringify does not
 * write (`\/` and `\u00e9` stand only inside strings), so that no output can be the bytes copied.
 */
function answerText(kind: 'task' | 'workflow', records: unknown[], spacing: 0 | 1 | '\t'): Buffer {
  const data = objectOf([...headFields(kind), [kind === 'task' ? 'detail' : 'details', records]]);
  const text = JSON.stringify({ code: 200, status: 'OK', data }, null, spacing);
  return Buffer.from(text.replaceAll('/', '\\/').replaceAll('é', '\\u00e9'));
}

describe('hostile records (fast-check)', () => {
  for (const kind of ['task', 'workflow'] as const) {
    it(`${argvOf(kind, 'ID').slice(0, 2).join(' ')} --json writes JSON.stringify(JSON.parse(answer).data, null, 2), in any pieces`, async () => {
      let body: Buffer = Buffer.alloc(0);
      let pieces: number[] = [];
      const server = await serve(
        () => body,
        () => pieces,
      );
      const env = envOf(server.url);
      let long = 0;
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(recordOf(kind), { maxLength: 5 }),
            fc.constantFrom(0 as const, 1 as const, '\t' as const),
            fc.array(fc.integer({ min: 1, max: 70_000 }), { maxLength: 20 }),
            async (records, spacing, sizes) => {
              body = answerText(kind, records, spacing);
              pieces = sizes;
              if (body.length > 256 << 10) long++;
              const r = await runCli(argvOf(kind, 'ID'), { env });
              expect(r.err).toBe('');
              expect(r.code).toBe(0);
              const data = (JSON.parse(body.toString()) as { data: unknown }).data;
              expect(r.out === `${JSON.stringify(data, null, 2)}\n`).toBe(true);
            },
          ),
          { numRuns: 30, seed: kind === 'task' ? 35 : 36 },
        );
      } finally {
        await server.close();
      }
      // Not vacuous: some answers were over 256 KiB.
      expect(long).toBeGreaterThan(3);
    }, 120_000);
  }
});

/** A task of `n` records (about 150 bytes each); `odd` of them refused by the schema, at these indexes. */
function taskAnswer(n: number, odd: number[] = []): string {
  const detail = Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    CalleeNumber: odd.includes(i) ? 5 : `+5511900000${i}`,
    Status: 'answered',
    Comments: `a comment of call ${i}, "quoted" and é`,
    EventLabel: { final: 'PTP' },
  }));
  return JSON.stringify({ data: { ...Object.fromEntries(headFields('task')), detail }, status: 'OK', code: 200 });
}

describe('a large answer', () => {
  it('records the check does not vouch for: left out and named by their index in the whole answer', async () => {
    const answer = Buffer.from(taskAnswer(40_000, [3, 25_000, 39_999]));
    const server = await serve(() => answer);
    try {
      const env = envOf(server.url);
      const old = await wholeAnswer(env, 'task', 'ID');
      const now = await runCli(argvOf('task', 'ID'), { env });
      expectSame(old, now);
      expect(old.warnings).toHaveLength(3);
      expect(old.warnings[1]).toContain('data.detail.25000.CalleeNumber');
      expect(recordsIn(now.out)).toBe(39_997);
    } finally {
      await server.close();
    }
  }, 30_000);

  it('an answer whose records come twice under one key: refused (JSON.parse would keep the last)', async () => {
    for (const n of [50, 40_000]) {
      const answer = Buffer.from(taskAnswer(n).replace(/\]\},"status"/, '],"detail":[{"id":9}]},"status"'));
      const server = await serve(() => answer);
      try {
        const r = await runCli(argvOf('task', 'ID'), { env: envOf(server.url) });
        expect(r.code).toBe(1);
        expect(r.err).toMatch(
          /^error: GET \/service\/cloud\/detail: HTTP 200, and the answer holds data\.detail twice/,
        );
        expect(() => JSON.parse(r.out)).toThrow();
      } finally {
        await server.close();
      }
    }
  }, 30_000);

  it('redacts the token in the spellings a service echoes', async () => {
    const token = 'tok-9f3a7c2e51';
    const spellings = [token, encodeURIComponent(token).replace('-', '%2D'), 'tok\\u002d9f3a7c2e51'];
    const answer = Buffer.from(
      taskAnswer(30_000).replace(/"Comments":"a comment of call 2\d{3},/g, (m) => `${m} ${spellings.join(' ')}`),
    );
    const server = await serve(() => answer);
    try {
      const r = await runCli(argvOf('task', 'ID'), { env: envOf(server.url, token) });
      expect(r.code, r.err).toBe(0);
      expect(r.out.match(/\*\*\*/g)?.length).toBe(3 * 1000);
      for (const s of ['9f3a7c2e51', '%2D9f3a']) expect(r.out).not.toContain(s);
      expect(JSON.parse(r.out).detail).toHaveLength(30_000);
    } finally {
      await server.close();
    }
  }, 30_000);
});
