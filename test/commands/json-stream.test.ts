import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { answerOf, argvOf, expectSame, headFields, recordsIn, taskBody, wholeAnswer } from '../helpers/json-answers.js';
import { useSandbox } from '../helpers/sandbox.js';
import { fixtureServer } from '../report/fixture-server.js';

// `task detail --json` and `workflow task-detail --json` stream the answer (src/output/json-stream.ts):
// the bytes must be those of the whole answer read, checked and printed as before (getTask /
// getWorkflowTask, then JSON.stringify(value, null, 2)), and so must the warnings and errors.

/** Runs the streaming command and holds it to what `wholeAnswer` printed. */
async function same(env: Record<string, string>, kind: 'task' | 'workflow', id: string) {
  const old = await wholeAnswer(env, kind, id);
  const now = await runCli(argvOf(kind, id), { env });
  expectSame(old, now);
  return { old, now };
}

/** A listener of this test's own, and the environment that points callctl at it. */
async function local(handler: RequestListener, token = 'tok') {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const env = {
    CALLCTL_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    CALLCTL_TOKEN: token,
    CALLCTL_CONFIG_DIR: tempConfigDir(),
  };
  return { env, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
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
      expect(r.err).toContain('the connection was lost in the middle of the answer');
      expect(r.err).toContain(`${written} records had been written before it`);
      expect(() => JSON.parse(r.out)).toThrow();
      expect(r.out.trimEnd().endsWith('}')).toBe(true); // the last record is whole...
      expect(r.out).not.toMatch(/\n {2}\]\n\}\n$/); // ...the array and the task are not closed
      // Once records are out, the request is not sent again: its answer could only be dropped.
      expect(server.hits).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('an answer that ends inside its JSON (no length said, the connection closed cleanly) is a cut too', async () => {
    const body = Buffer.from(taskBody(200));
    let hits = 0;
    const server = await local((req, res) => {
      hits++;
      req.resume();
      // Chunked, then ended early: nothing at the HTTP level says the body is short.
      res.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
      res.write(body.subarray(0, 20_000));
      setTimeout(() => res.end(body.subarray(20_000, 40_000)), 20);
    });
    try {
      const env = server.env;
      const r = await runCli(['task', 'detail', 'T-GEN', '--json'], { env });
      expect(r.code).toBe(5);
      const written = recordsIn(r.out);
      expect(written).toBeGreaterThan(10);
      expect(r.err).toContain(`the answer was cut short (its JSON ends early)`);
      expect(r.err).toContain(`${written} records had been written before it`);
      expect(() => JSON.parse(r.out)).toThrow();
      expect(hits).toBe(1);
    } finally {
      await server.close();
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
    const server = await local((req, res) => {
      req.resume();
      const q = new URL(req.url!, 'http://x').searchParams;
      const page = Number(q.get('page'));
      const lists = all.slice((page - 1) * 3, page * 3);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 200, status: 'OK', data: { lists, count: all.length } }));
    }, 'tok-123456');
    try {
      const env = server.env;
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
      await server.close();
    }
  });
});

describe('a later page that fails, once the first is out', () => {
  it.each([
    ['workflow', 'list', '--all', '--size', '3', '--json'],
    ['api', 'GET', '/service/cloud/workflow/instancelist', '--paginate', '-f', 'size=3'],
  ])('%s %s: the service own words, saying how many were written; the list is not closed', async (...argv) => {
    const all = Array.from({ length: 7 }, (_, i) => ({
      workflow_id: `wf-${i}`,
      name: `n${i}`,
      template_name: 't',
      status: 'running',
      total: i,
      start_time: '2026-11-20 10:00:00',
      end_time: '2026-11-21 10:00:00',
      create_time: '2026-11-20 09:00:00',
    }));
    const server = await local((req, res) => {
      req.resume();
      const page = Number(new URL(req.url!, 'http://x').searchParams.get('page'));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        page === 1
          ? JSON.stringify({ code: 200, status: 'OK', data: { lists: all.slice(0, 3), count: all.length } })
          : JSON.stringify({ code: 404, status: 'no such page', data: null }),
      );
    });
    try {
      const env = server.env;
      const r = await runCli(argv, { env });
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/code 404: no such page; 3 records had been written before it/);
      expect(r.out).toContain('"wf-2"');
      expect(() => JSON.parse(r.out)).toThrow();
    } finally {
      await server.close();
    }
  });
});
