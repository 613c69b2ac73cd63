import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import type { FaultPatch } from '../../src/sandbox/faults.js';
import { runCli } from '../helpers/cli.js';
import { pushCsv, tempDir, useSendSandbox, writeIn } from '../reach/helpers.js';

/**
 * The fault matrix of push --csv: each fault × a re-run with and without --resend-uncertain. The
 * sandbox's record of the pushes it took is the judge: every caller is called exactly once, or was
 * reported uncertain and is called at most once more, only when asked.
 */
let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
useSendSandbox('push', (s, e) => {
  sandbox = s;
  env = e;
  dir = tempDir();
});

const ROWS = 6;
const PATH = '/flex/api/push/';
const FAULTS: Array<[string, FaultPatch, string[]]> = [
  ['drop before the body', { path: PATH, drop: 1 }, []],
  ['drop after the body', { path: PATH, dropAfterBody: 1 }, []],
  ['no answer before the timeout', { path: PATH, delayMs: 1200 }, ['--timeout', '0.4']],
  // The call is placed, then the answer is lost: the client cannot know it was.
  ['call placed, answer lost', { path: PATH, dropAnswer: 1 }, []],
  ['HTTP 500', { path: PATH, fail500: 1 }, []],
  ['HTTP 429', { path: PATH, fail429: 1, retryAfter: 0 }, []],
];

let n = 0;
const push = (file: string, ...extra: string[]) =>
  runCli(['push', '--csv', file, '--rate', '1000', '--yes', '--json', ...extra], { env });
const calls = (id: string) => sandbox.state.received.pushes.filter((p) => p.caller_id === id).length;

describe('push --csv fault matrix', () => {
  for (const [name, fault, flags] of FAULTS) {
    for (const resend of [false, true]) {
      it(`${name}; re-run ${resend ? 'with' : 'without'} --resend-uncertain`, async () => {
        const start = 1000 + 10 * ++n;
        const file = writeIn(dir, `f${n}.csv`, pushCsv(ROWS, start));
        sandbox.setFaults(fault);
        const first = await push(file, ...flags);
        sandbox.resetFaults();
        const s1 = JSON.parse(first.out);
        const uncertain = new Set<number>(s1.uncertainRows);
        if (uncertain.size > 0) expect(first.err).toMatch(/may have reached people/);
        if (fault.dropAnswer) {
          // The one call placed whose answer was lost: uncertain, and placed exactly once.
          expect([...uncertain]).toEqual([1]);
          expect(calls(`+628${String(start).padStart(9, '0')}`)).toBe(1);
        }
        // Refused rows (500, 429: answered, nobody called) are sent again when asked with --retry-failed.
        const second = await push(file, '--retry-failed', ...(resend ? ['--resend-uncertain'] : []));
        // Rows left uncertain and not resent: exit 5, as every uncertain outcome.
        expect(second.code, second.err).toBe(uncertain.size > 0 && !resend ? 5 : 0);
        for (let i = 0; i < ROWS; i++) {
          const id = `+628${String(start + i).padStart(9, '0')}`;
          const times = calls(id);
          if (uncertain.has(i + 1)) expect(times, `row ${i + 1}`).toBeLessThanOrEqual(resend ? 2 : 1);
          else expect(times, `row ${i + 1}`).toBe(1);
        }
        if (!resend && uncertain.size > 0) {
          // Asked afterwards: each uncertain row once more, nothing else.
          const before = sandbox.state.received.pushes.length;
          const third = await push(file, '--resend-uncertain');
          expect(third.code, third.err).toBe(0);
          expect(sandbox.state.received.pushes.length - before).toBe(uncertain.size);
        }
      });
    }
  }
});
