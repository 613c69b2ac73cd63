import { spawn, execSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it, beforeEach } from 'vitest';
import { type Sandbox } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { pushCsv, tempDir, writeIn } from '../reach/helpers.js';
import { useSandbox } from '../helpers/sandbox.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ROWS = 500;
/** The row in flight when the child is killed: the sandbox has it, the child never reads the answer. */
const KILL_AT = 250;

let sandbox: Sandbox;

beforeAll(async () => {
  // The child runs the built CLI (`npm test` builds first); build when it is missing.
  if (!existsSync(join(ROOT, 'dist/main.js'))) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
});
const fixture = useSandbox();
beforeEach(() => (sandbox = fixture.sandbox));

/** Blocks this process's event loop, so the sandbox cannot answer before the kill has landed. */
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

describe('push --csv killed with SIGKILL midway, then run again', () => {
  it('never sends a row twice; the row in flight is uncertain; every other row arrives once; the results are complete', async () => {
    const dir = tempDir();
    const text = pushCsv(ROWS);
    const file = writeIn(dir, 'callers.csv', text);
    const configDir = tempConfigDir();
    const env = {
      CALLCTL_FLEX_URL: sandbox.flexUrl,
      CALLCTL_PUSH_TOKEN: sandbox.pushToken,
      CALLCTL_CONFIG_DIR: configDir,
      XDG_STATE_HOME: join(configDir, 'state'),
    };

    // 1. The child sends at 200/s; on the KILL_AT-th arrival, before the sandbox answers, SIGKILL.
    const child: ChildProcess = spawn(
      process.execPath,
      ['bin/callctl.js', 'push', '--csv', file, '--rate', '200', '--yes', '--json'],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const onPush = () => {
      if (sandbox.state.received.pushes.length === KILL_AT) {
        child.kill('SIGKILL');
        block(200);
      }
    };
    sandbox.events.on('push.received', onPush);
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    sandbox.events.off('push.received', onPush);
    expect(exit.signal, stderr).toBe('SIGKILL');
    expect(sandbox.state.received.pushes).toHaveLength(KILL_AT);
    // At 200/s the sends are at least 5 ms apart (a little slack for the clocks' granularity).
    const first = sandbox.state.received.pushes;
    expect(first[KILL_AT - 1]!.receivedAt - first[0]!.receivedAt).toBeGreaterThanOrEqual((KILL_AT - 1) * 5 * 0.95);
    expect(existsSync(join(dir, 'callers.results.csv'))).toBe(false);

    // The journal: rows 1..KILL_AT-1 answered; KILL_AT about to be sent with no answer.
    const journalDir = join(configDir, 'state', 'callctl', 'journals');
    const [journalFile] = readdirSync(journalDir).filter((f) => f.endsWith('.jsonl'));
    const entries = readFileSync(join(journalDir, journalFile!), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { t: string; row?: number });
    const answered = new Set(entries.filter((e) => e.t === 'sent').map((e) => e.row));
    const inFlight = entries.filter((e) => e.t === 'about' && !answered.has(e.row)).map((e) => e.row);
    expect(inFlight).toEqual([KILL_AT]);
    expect(answered.size).toBe(KILL_AT - 1);

    // 2. Run again (the lock the killed run left is stale): the rest is sent, the row in flight is not.
    const again = await runCli(['push', '--csv', file, '--rate', '200', '--yes', '--json'], { env, realSleep: true });
    // Uncertain is exit 5 with an error line, as in workflow update.
    expect(again.code, again.err).toBe(5);
    expect(again.err).toMatch(/Z error: 1 row may have reached people without an answer/);
    const summary = JSON.parse(again.out);
    expect(summary).toMatchObject({
      total: ROWS,
      sent: ROWS - 1,
      uncertain: 1,
      failed: 0,
      skipped: 0,
      uncertainRows: inFlight,
      stopped: null,
    });
    expect(summary.thisRun).toEqual({ sent: ROWS - KILL_AT, failed: 0, uncertain: 0 });
    expect(again.err).toContain(`rows ${KILL_AT}`);

    // Every row reached the sandbox exactly once, and what arrived is what the file says.
    const pushes = sandbox.state.received.pushes;
    const lines = text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    expect(pushes).toHaveLength(ROWS);
    const byCaller = new Map(pushes.map((p) => [p.caller_id, p]));
    expect(byCaller.size).toBe(ROWS);
    for (const [caller, client, debt] of lines) {
      expect(byCaller.get(caller!), caller).toMatchObject({
        environment: 'live',
        client_name: client,
        variables: { debt_amount: debt },
      });
    }

    // The results file: one line per row; the uncertain row says so; the others carry their trace id.
    const results = readFileSync(join(dir, 'callers.results.csv'), 'utf8').trim().split('\n');
    expect(results[0]).toBe('row,line,caller_id,outcome,trace_id,error');
    expect(results).toHaveLength(ROWS + 1);
    results.slice(1).forEach((line, i) => {
      const [row, fileLine, caller, outcome, traceId] = line.split(',');
      expect(Number(row)).toBe(i + 1);
      expect(Number(fileLine)).toBe(i + 2);
      expect(caller).toBe(lines[i]![0]);
      if (i + 1 === KILL_AT) expect(outcome).toBe('uncertain');
      else expect([outcome, traceId]).toEqual(['sent', byCaller.get(caller!)!.trace_id]);
    });

    // 3. Only --resend-uncertain sends it again (this sandbox did get it, so now it has it twice).
    const third = await runCli(['push', '--csv', file, '--yes', '--json'], { env });
    expect(JSON.parse(third.out).thisRun.sent).toBe(0);
    expect(pushes).toHaveLength(ROWS);
    const resend = await runCli(['push', '--csv', file, '--yes', '--json', '--resend-uncertain'], { env });
    expect(resend.code, resend.err).toBe(0);
    expect(JSON.parse(resend.out)).toMatchObject({ sent: ROWS, uncertain: 0, thisRun: { sent: 1 } });
    expect(pushes.slice(ROWS).map((p) => p.caller_id)).toEqual([lines[KILL_AT - 1]![0]]);
  });
});
