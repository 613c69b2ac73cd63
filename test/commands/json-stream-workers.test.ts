import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SLOT_IN, SLOT_OUT, WORKERS_FROM_BYTES } from '../../src/api/group-jobs.js';
import { tempConfigDir } from '../helpers/cli.js';
import { answerOf, argvOf, expectSame, headFields, recordsIn, wholeAnswer } from '../helpers/json-answers.js';

// `--json` of a large answer (its length said, or past WORKERS_FROM_BYTES read) has its records
// parsed, checked and written by worker threads (src/api/group-workers.ts). Their script is in
// dist/ only, so these tests run the built CLI. The bytes, warnings and errors must be those of the
// whole answer read at once, as for a small answer (test/commands/json-stream.test.ts).

const bin = fileURLToPath(new URL('../../bin/callctl.js', import.meta.url));

/**
 * The built CLI: its output, its own lines on stderr, and how many worker threads Node says it
 * started (NODE_DEBUG=worker).
 */
function cli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string; err: string; workers: number }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH!, HOME: env.CALLCTL_CONFIG_DIR!, NO_COLOR: '1', NODE_DEBUG: 'worker', ...env },
    });
    let out = '';
    let err = '';
    // Decoded as a whole: a character cut between two reads of the pipe stays one character.
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('close', (code) => {
      // callctl's own lines, without Node's log (some of it over several lines).
      const own = err.split('\n').filter((l) => /^(warning|error): /.test(l));
      const workers = err.split('\n').filter((l) => /^WORKER \d+: \[0\] created Worker with ID/.test(l)).length;
      expect(err).not.toContain(env.CALLCTL_TOKEN); // nor in Node's log
      resolve({ code, out, err: own.join('\n'), workers });
    });
  });
}

/**
 * Serves `body()` at both detail paths: the answer in small pieces (so that the array opens in a
 * first chunk of its own and records come after), then its `padding` of spaces at once (JSON's
 * whitespace: a length past WORKERS_FROM_BYTES without megabytes of records). Chunked when
 * `length` is false; the connection cut after `cutAt` bytes of the answer.
 */
async function serve(body: () => string, options: { padding?: number; length?: boolean; cutAt?: number } = {}) {
  const { padding = WORKERS_FROM_BYTES, length = true, cutAt = Infinity } = options;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = Buffer.from(body());
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(length ? { 'content-length': answer.length + padding } : {}),
      });
      let i = 0;
      const step = () => {
        if (i >= cutAt) return res.socket?.destroy();
        if (i >= answer.length) return res.end(' '.repeat(padding));
        // Apart in time at first, so that the array opens in a chunk before its records.
        const piece = i < 4096 ? 97 : 16_384;
        res.write(answer.subarray(i, Math.min(i + piece, cutAt)));
        i += piece;
        if (i < 4096) setTimeout(step, 1);
        else setImmediate(step);
      };
      step();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Runs the built CLI and holds it to what the whole answer read printed. */
async function same(env: Record<string, string>, kind: 'task' | 'workflow') {
  const old = await wholeAnswer(env, kind, 'ID');
  const now = await cli(argvOf(kind, 'ID'), env);
  expectSame(old, now);
  return { old, now };
}

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

/** Worker threads a large answer is read by: two, or none on a machine of one core. */
const WORKERS = availableParallelism() >= 2 ? 2 : 0;

const envOf = (url: string, token = 'tok') => ({
  CALLCTL_BASE_URL: url,
  CALLCTL_TOKEN: token,
  CALLCTL_CONFIG_DIR: tempConfigDir(),
});

describe('a large answer read by worker threads', () => {
  for (const kind of ['task', 'workflow'] as const) {
    it(`${argvOf(kind, 'ID').slice(0, 2).join(' ')} --json, generated answers: the same bytes, warnings and errors as the whole answer read`, async () => {
      let body = '';
      const server = await serve(() => body);
      const env = envOf(server.url);
      let read = 0;
      try {
        await fc.assert(
          fc.asyncProperty(answerOf(kind, { fieldsFirst: true }), async (answer) => {
            body = answer;
            const { now } = await same(env, kind);
            if (now.workers > 0) read++;
          }),
          { numRuns: 12, seed: kind === 'task' ? 126 : 127 },
        );
      } finally {
        await server.close();
      }
      // Not vacuous: most answers (all but those whose fields before the array are refused, or
      // whose records came in the array's first chunk) went to workers.
      expect(read).toBeGreaterThan(WORKERS ? 6 : -1);
    }, 60_000);
  }

  it('records the check does not vouch for, among those the workers read: left out and named by index, as before', async () => {
    const server = await serve(() => taskAnswer(40_000, [3, 25_000, 39_999]));
    try {
      const { old, now } = await same(envOf(server.url), 'task');
      expect(now.workers).toBe(WORKERS);
      expect(old.warnings).toHaveLength(3);
      expect(old.warnings[1]).toContain('data.detail.25000.CalleeNumber');
      expect(recordsIn(now.out)).toBe(39_997);
    } finally {
      await server.close();
    }
  }, 30_000);

  it("a record longer than a slot (read on the main thread, in its place), and one whose text outgrows its slot's", async () => {
    const answer = JSON.parse(taskAnswer(30_000)) as { data: { detail: Array<Record<string, unknown>> } };
    const records = answer.data.detail;
    // 250 KB of bytes: more than a slot holds (SLOT_IN), so its group is read here.
    records[20_000]!.Comments = 'x'.repeat(250_000);
    // 119 KB of bytes that indent to about 580 KB: more than a slot's text holds (SLOT_OUT).
    records[5_000]!.zz = Object.fromEntries(Array.from({ length: 8_500 }, (_, i) => [`k${i}`, [[0]]]));
    expect(JSON.stringify(records[20_000]).length).toBeGreaterThan(SLOT_IN);
    expect(JSON.stringify(records[5_000]!.zz).length).toBeLessThan(SLOT_IN - 70_000);
    expect(JSON.stringify([[records[5_000]]], null, 2).length).toBeGreaterThan(SLOT_OUT); // as written, 4 levels in
    const server = await serve(() => JSON.stringify(answer));
    try {
      const { now } = await same(envOf(server.url), 'task');
      expect(now.workers).toBe(WORKERS);
      expect(recordsIn(now.out)).toBe(30_000);
    } finally {
      await server.close();
    }
  }, 30_000);

  it('without WebAssembly (node --jitless): the same bytes, each text written by JSON.stringify', async () => {
    const server = await serve(() => taskAnswer(40_000));
    try {
      const { now } = await same({ ...envOf(server.url), NODE_OPTIONS: '--jitless' }, 'task');
      expect(now.workers).toBe(WORKERS);
      expect(recordsIn(now.out)).toBe(40_000);
    } finally {
      await server.close();
    }
  }, 30_000);

  it('an answer that does not say its length: workers once WORKERS_FROM_BYTES of it were read', async () => {
    const server = await serve(() => taskAnswer(60_000), { padding: 0, length: false });
    try {
      const { now } = await same(envOf(server.url), 'task');
      expect(Buffer.byteLength(taskAnswer(60_000))).toBeGreaterThan(2 * WORKERS_FROM_BYTES);
      expect(now.workers).toBe(WORKERS);
      expect(recordsIn(now.out)).toBe(60_000);
    } finally {
      await server.close();
    }
  }, 30_000);

  it('a connection cut mid-answer: no closing brackets, exit 5, the records written counted', async () => {
    const answer = taskAnswer(40_000);
    const server = await serve(() => answer, { cutAt: Math.floor(answer.length * 0.6) });
    try {
      const r = await cli(argvOf('task', 'ID'), envOf(server.url));
      expect(r.workers).toBe(WORKERS);
      expect(r.code).toBe(5);
      const written = recordsIn(r.out);
      expect(written).toBeGreaterThan(1000);
      expect(written).toBeLessThan(40_000);
      expect(r.err).toContain(
        `the connection was lost after ${written.toLocaleString('en-US')} records had been written`,
      );
      expect(r.out.trimEnd().endsWith('}')).toBe(true);
      expect(() => JSON.parse(r.out)).toThrow();
    } finally {
      await server.close();
    }
  }, 30_000);

  it('an answer whose records come twice under one key: refused, with or without the workers', async () => {
    // JSON.parse keeps the last array; the workers' reading went on into the second one and wrote
    // both (exit 0), where the main thread's reading said "not JSON". Now both refuse it alike.
    for (const n of [50, 40_000]) {
      const answer = taskAnswer(n).replace(/\]\},"status"/, '],"detail":[{"id":9}]},"status"');
      const server = await serve(() => answer, n === 50 ? { padding: 0 } : {});
      try {
        const r = await cli(argvOf('task', 'ID'), envOf(server.url));
        expect(r.workers).toBe(n === 50 ? 0 : WORKERS);
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

  it('redacts the secrets the workers are told of, in the spellings a service echoes', async () => {
    const token = 'tok-9f3a7c2e51';
    const spellings = [token, encodeURIComponent(token).replace('-', '%2D'), 'tok\\u002d9f3a7c2e51'];
    const server = await serve(() =>
      taskAnswer(30_000).replace(/"Comments":"a comment of call 2\d{3},/g, (m) => `${m} ${spellings.join(' ')}`),
    );
    try {
      const r = await cli(argvOf('task', 'ID'), envOf(server.url, token));
      expect(r.workers).toBe(WORKERS);
      expect(r.code, r.err).toBe(0);
      expect(r.out.match(/\*\*\*/g)?.length).toBe(3 * 1000);
      for (const s of ['9f3a7c2e51', '%2D9f3a']) expect(r.out).not.toContain(s);
      expect(JSON.parse(r.out).detail).toHaveLength(30_000);
    } finally {
      await server.close();
    }
  }, 30_000);
});
