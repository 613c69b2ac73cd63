import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SEED, type Sandbox } from '../../src/sandbox/server.js';
import { main } from '../../src/main.js';
import { testIO, type TestIO } from '../helpers/io.js';
import { TmuxSession } from '../helpers/tmux.js';
import { itWith } from '../helpers/programs.js';
import { useSandbox } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let env: Record<string, string>;
const sessions: TmuxSession[] = [];
const MINUTE = 60_000;

const fixture = useSandbox();
// Hooks after a test run last-registered first: the sessions close before the sandbox does.
afterAll(() => {
  for (const s of sessions) s.close();
});
beforeEach(() => {
  sandbox = fixture.sandbox;
  env = { ...fixture.env, NO_COLOR: '1' };
});

interface Watched {
  code: number;
  io: TestIO;
  /** Waits the watch asked for, in order (the transport's retries included). */
  waits: number[];
}

/**
 * Runs a watch in-process. Each wait between polls moves the sandbox's simulated time on by
 * `step` ms instead of sleeping (so a plan goes through its states as it would over minutes), and
 * `onWait` may change the sandbox or stop the watch before the next poll.
 */
async function runWatch(
  argv: string[],
  opts: {
    tty?: boolean;
    step?: number;
    onWait?: (n: number, io: TestIO, signal: () => void, waits: number[]) => void;
    maxWaits?: number;
  } = {},
): Promise<Watched> {
  const io = testIO({ env, tty: opts.tty ?? false });
  if (opts.tty) io.columns = 80;
  const waits: number[] = [];
  let handler: ((s: 'SIGINT' | 'SIGTERM') => void) | undefined;
  io.onSignal = (h) => {
    handler = h;
    return () => (handler = undefined);
  };
  io.sleep = async (ms) => {
    waits.push(ms);
    if (waits.length > (opts.maxWaits ?? 50)) throw new Error(`the watch did not end after ${waits.length} waits`);
    sandbox.simulate.advanceTime(opts.step ?? 0);
    opts.onWait?.(waits.length, io, () => handler?.('SIGINT'), waits);
    await new Promise((r) => setImmediate(r));
  };
  const code = await main(argv, io);
  return { code, io, waits };
}

const lines = (text: string) => text.split('\n').filter(Boolean);

describe('--watch without a terminal', () => {
  it('plan status: a timestamped line only when the status changes; --exit-status ends at finished with 0', async () => {
    const plan = sandbox.state.plans.get(SEED.callingPlanName)!;
    expect(plan.PlanStatus).toBe('calling');
    // One simulated minute per wait: several polls see "calling" before the plan finishes.
    const r = await runWatch(['plan', 'status', SEED.callingPlanName, '--exit-status', '--interval', '2'], {
      step: MINUTE,
      maxWaits: 400,
    });
    expect(r.code, r.io.err()).toBe(0);
    const out = lines(r.io.out());
    expect(out.map((l) => l.split('\t').slice(1).join(' '))).toEqual([
      `${SEED.callingPlanName} calling`,
      `${SEED.callingPlanName} finished`,
    ]);
    for (const line of out) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\t/);
    expect(r.waits.length).toBeGreaterThan(2);
    expect(new Set(r.waits)).toEqual(new Set([2000]));
    expect(sandbox.state.plans.get(SEED.callingPlanName)!.PlanStatus).toBe('finished');
  });

  it('--exit-status: canceled exits 1 (a task, and a plan)', async () => {
    const task = await runWatch(['task', 'detail', SEED.canceledTaskId, '--exit-status']);
    expect(task.code).toBe(1);
    expect(lines(task.io.out())).toHaveLength(1);
    expect(task.io.out()).toMatch(/Status=canceled\tCalls=\d+\tAnswered=\d+/);

    sandbox.simulate.createPlan({ name: 'PLAN-WATCH-CANCEL', rounds: 1, startInMs: 60 * MINUTE });
    const plan = await runWatch(['plan', 'status', 'PLAN-WATCH-CANCEL', '--exit-status', '--json'], {
      onWait: (n) => {
        if (n === 2) sandbox.state.plans.get('PLAN-WATCH-CANCEL')!.PlanStatus = 'canceled';
      },
    });
    expect(plan.code).toBe(1);
    expect(lines(plan.io.out()).map((l) => JSON.parse(l).PlanStatus)).toEqual(['planned', 'canceled']);
  });

  it('a failing service is shown and retried with a doubling wait, then the interval again', async () => {
    // The transport's own retries wait at most 2 s; the watch's waits are 5 s and more.
    const pollWaits = (waits: number[]) => waits.filter((w) => w >= 5000);
    const r = await runWatch(['plan', 'status', SEED.planName, '--watch', '--interval', '5'], {
      onWait: (n, _io, stop, waits) => {
        // Every attempt of the next two polls fails: 4 attempts each (1 + 3 retries).
        if (n === 1) sandbox.faults.fail500 = 2 * 4;
        if (pollWaits(waits).length === 4) stop();
      },
      maxWaits: 100,
    });
    expect(r.code).toBe(130);
    expect(pollWaits(r.waits)).toEqual([5000, 10_000, 20_000, 5000]);
    expect(r.io.err()).toMatch(/error: GET \/service\/cloud\/planstatus: HTTP 500.*\(trying again in 10 s\)/);
    expect(r.io.err()).toMatch(/\(trying again in 20 s\)/);
    // The status did not change: one line only, for the first poll.
    expect(lines(r.io.out())).toHaveLength(1);
  });

  it('a refusal ends the watch with its own exit code', async () => {
    const r = await runWatch(['plan', 'status', 'NO-SUCH-PLAN', '--watch']);
    expect(r.code).toBe(1);
    expect(r.waits).toEqual([]);
    expect(r.io.err()).toMatch(/planstatus/);
  });

  it('workflow list: a timestamped row for each instance new or changed since the last poll', async () => {
    const r = await runWatch(['workflow', 'list', '--size', '3', '--watch', '--interval', '1'], {
      onWait: (n, _io, stop) => {
        if (n === 1) [...sandbox.state.workflows.values()][0]!.instance.status = 'finished';
        if (n === 3) stop();
      },
    });
    expect(r.code).toBe(130);
    const rows = lines(r.io.out()).map((l) => l.split('\t'));
    expect(rows).toHaveLength(4);
    expect(rows[3]![1]).toBe(SEED.workflowId);
    expect(rows[3]![4]).toBe('finished');
  });
});

describe('--watch on a terminal', () => {
  it('redraws in place with the cursor hidden, and Ctrl-C exits 130 silently with the cursor shown again', async () => {
    const r = await runWatch(['plan', 'status', SEED.plannedPlanName, '--watch'], {
      tty: true,
      onWait: (n, _io, stop) => {
        if (n === 3) stop();
      },
    });
    expect(r.code).toBe(130);
    const out = r.io.out();
    expect(out.startsWith('\u001b[?25l')).toBe(true);
    expect(out.endsWith('\u001b[?25h')).toBe(true);
    // Three screens: the second and third move back up over the first (title, blank, 2 pairs, hint).
    expect(out.match(/\u001b\[5A/g)).toHaveLength(2);
    expect(out.match(/Every 5 s: callctl plan status PLAN-C/g)).toHaveLength(3);
    expect(r.io.err()).toBe('');
  });

  itWith(
    'tmux',
    'in a real 80-column terminal: one screen however many refreshes, then Ctrl-C restores the cursor',
    async () => {
      const bin = fileURLToPath(new URL('../../bin/callctl.js', import.meta.url));
      const session = new TmuxSession(
        `"${process.execPath}" "${bin}" workflow list --size 4 --watch --interval 1`,
        env,
        { width: 80, height: 24 },
      );
      sessions.push(session);
      await session.waitFor(/Ctrl-C to stop/);
      expect(session.cursorVisible()).toBe(false);
      [...sandbox.state.workflows.values()][1]!.instance.status = 'finished';
      const screen = await session.waitFor(/wf-20002 │ [^│]+│ finished/);
      expect(screen.match(/Every 1 s/g)).toHaveLength(1);
      for (const row of screen.split('\n').filter((l) => /^[┌│├└]/.test(l))) expect(row.trimEnd()).toMatch(/[┐│┤┘]$/);
      session.press('C-c');
      expect(await session.waitFor(/EXIT=\d+/)).toMatch(/EXIT=130/);
      expect(session.cursorVisible()).toBe(true);
    },
  );
});
