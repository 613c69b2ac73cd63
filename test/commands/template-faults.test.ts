import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import type { FaultPatch } from '../../src/sandbox/faults.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, useSendSandbox, writeIn } from '../reach/helpers.js';
import { TEMPLATE_CSV_FLAGS } from '../helpers/template-send.js';

/**
 * The fault matrix of template send --csv (the runner push --csv shares): each fault on the first
 * row's message × a re-run with and without --resend-uncertain. The sandbox's record of the
 * messages it took is the judge: every recipient gets exactly one message, or the row was reported
 * uncertain and gets at most one more, only when asked.
 */
let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
useSendSandbox('template', (s, e) => {
  sandbox = s;
  env = e;
  dir = tempDir();
});

const ROWS = 4;
const PATH = '/api/v1/template/unitcast';
const FLAGS = TEMPLATE_CSV_FLAGS;
/** What row 1 becomes in the first run, whether its message reached the sandbox, and the first run's exit code. */
type Expect = { row1: 'uncertain' | 'failed'; reached: 0 | 1; exit: number };
const FAULTS: Array<[string, FaultPatch, string[], Expect]> = [
  ['drop before the body', { path: PATH, drop: 1 }, [], { row1: 'uncertain', reached: 0, exit: 5 }],
  // The sandbox drops after reading the body and before taking the message, and a request whose
  // client gave up is not taken either: both 'reached: 0', so a silent re-send would show as 1.
  ['drop after the body', { path: PATH, dropAfterBody: 1 }, [], { row1: 'uncertain', reached: 0, exit: 5 }],
  [
    'no answer before the timeout',
    { path: PATH, delayMs: 800 },
    ['--timeout', '0.3'],
    { row1: 'uncertain', reached: 0, exit: 5 },
  ],
  // The message is sent, then the answer is lost: the row is uncertain and was sent once.
  ['sent, answer lost', { path: PATH, dropAnswer: 1 }, [], { row1: 'uncertain', reached: 1, exit: 5 }],
  ['HTTP 500', { path: PATH, fail500: 1 }, [], { row1: 'failed', reached: 0, exit: 1 }],
  ['HTTP 429', { path: PATH, fail429: 1, retryAfter: 0 }, [], { row1: 'failed', reached: 0, exit: 1 }],
];

let n = 0;
const send = (file: string, ...extra: string[]) =>
  runCli(['template', 'send', ...FLAGS, '--csv', file, '--rate', '1000', '--yes', '--json', ...extra], { env });
const csv = (start: number) =>
  `channel_id,user_id,name\n${Array.from({ length: ROWS }, (_, i) => `+629${String(start + i).padStart(9, '0')},u${start + i},N${start + i}`).join('\n')}\n`;
const messages = (channelId: string) =>
  sandbox.state.received.templates.filter((t) => t.channel_id === channelId).length;

describe('template send --csv fault matrix', () => {
  for (const [name, fault, flags, want] of FAULTS) {
    for (const resend of [false, true]) {
      it(`${name}; re-run ${resend ? 'with' : 'without'} --resend-uncertain`, async () => {
        const start = 2000 + 10 * ++n;
        const ids = Array.from({ length: ROWS }, (_, i) => `+629${String(start + i).padStart(9, '0')}`);
        const file = writeIn(dir, `t${n}.csv`, csv(start));
        sandbox.setFaults(fault);
        const first = await send(file, ...flags);
        sandbox.resetFaults();
        // let the sandbox finish with a delayed request before its record is read
        if (fault.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs! + 200));
        expect(first.code, first.err).toBe(want.exit);
        const s1 = JSON.parse(first.out);
        expect(s1.results).toBe(`${dir}/t${n}.results.csv`);
        expect(messages(ids[0]!), 'row 1 after the first run').toBe(want.reached);
        if (want.row1 === 'uncertain') {
          expect(s1.uncertainRows).toEqual([1]);
          expect(first.err).toMatch(/may have reached people/);
        } else {
          expect(s1).toMatchObject({ uncertain: 0, failed: 1 });
        }
        // Refused rows (500, 429: answered, nobody reached) are sent again with --retry-failed.
        const second = await send(file, '--retry-failed', ...(resend ? ['--resend-uncertain'] : []));
        expect(second.code, second.err).toBe(want.row1 === 'uncertain' && !resend ? 5 : 0);
        const row1 = want.row1 === 'failed' ? 1 : want.reached + (resend ? 1 : 0);
        expect(messages(ids[0]!), 'row 1').toBe(row1);
        for (const id of ids.slice(1)) expect(messages(id), id).toBe(1);
        if (!resend && want.row1 === 'uncertain') {
          // Asked afterwards: the uncertain row once more, nothing else; then nothing at all.
          const before = sandbox.state.received.templates.length;
          const third = await send(file, '--resend-uncertain');
          expect(third.code, third.err).toBe(0);
          expect(sandbox.state.received.templates.length - before).toBe(1);
          const fourth = await send(file, '--resend-uncertain', '--retry-failed');
          expect(fourth.code, fourth.err).toBe(0);
          expect(sandbox.state.received.templates.length - before).toBe(1);
        }
      });
    }
  }
});
