import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { received, useUploadSandbox, WORKFLOW } from '../upload/helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import type { FaultPatch } from '../../src/sandbox/faults.js';

/**
 * The fault matrix of uploads: each fault × rows with and without caseid × a re-run with and
 * without --resend-uncertain. The sandbox's own record of what it accepted is the judge: every
 * row arrives exactly once, or it was reported uncertain and arrives at most once more when
 * asked (rows with caseid may be sent again by themselves, said so: at most twice).
 */
let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
useUploadSandbox((s) => ({ sandbox, env, dir } = s));

const ROWS = 12;
const PATH = '/service/cloud/workflow/updatedetails';

const FAULTS: Array<[string, FaultPatch, string[]]> = [
  ['drop before the body', { path: PATH, drop: 1 }, []],
  ['drop after the body', { path: PATH, dropAfterBody: 1 }, []],
  [
    'batch 2 accepted, then the connection dropped',
    { failBatch: { index: 2, mode: 'drop-after-accept', repeat: 'once' } },
    [],
  ],
  ['batch 2 dropped every time', { failBatch: { index: 2, mode: 'drop', repeat: 'always' } }, []],
  ['no answer before the timeout', { path: PATH, delayMs: 1500 }, ['--timeout', '0.5']],
  ['HTTP 500 twice', { path: PATH, fail500: 2 }, []],
  ['HTTP 429', { path: PATH, fail429: 1, retryAfter: 0 }, []],
  ['batch 2 refused with code 500', { failBatch: { index: 2, mode: 'envelope', repeat: 'once' } }, []],
];

let n = 0;
function file(caseids: boolean): string {
  const id = ++n;
  const lines = [caseids ? 'callee,platform,caseid,name' : 'callee,platform,name'];
  for (let i = 1; i <= ROWS; i++)
    lines.push(
      `+62899${String(id).padStart(3, '0')}${String(i).padStart(4, '0')},shop,${caseids ? `K${id}-${i},` : ''}N${i}`,
    );
  const path = join(dir, `m${id}.csv`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const update = (path: string, ...extra: string[]) =>
  runCli(
    ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', path, '--batch-size', '4', '--yes', '--json', ...extra],
    { env },
  );

/** Lines reported uncertain by a run's JSON summary. */
function uncertainLines(out: string): number[] {
  if (!out.trim()) return [];
  const s = JSON.parse(out) as { uncertain?: Array<{ firstLine: number; lastLine: number }> };
  return (s.uncertain ?? []).flatMap((b) =>
    Array.from({ length: b.lastLine - b.firstLine + 1 }, (_, i) => b.firstLine + i),
  );
}

describe('upload fault matrix', () => {
  for (const [name, fault, flags] of FAULTS) {
    for (const caseids of [false, true]) {
      for (const resend of [false, true]) {
        it(`${name}; rows ${caseids ? 'with' : 'without'} caseid; re-run ${resend ? 'with' : 'without'} --resend-uncertain`, async () => {
          const path = file(caseids);
          sandbox.setFaults(fault);
          const first = await update(path, ...flags);
          sandbox.resetFaults();
          const uncertain = new Set(uncertainLines(first.out));
          expect([0, 5]).toContain(first.code);
          if (first.code === 5) expect(first.err).toMatch(/run the same command again|may have reached the service/);
          if (!caseids && uncertain.size > 0) {
            expect(first.err).toContain('--resend-uncertain');
            expect(first.code).toBe(5);
          }
          const second = await update(path, ...(resend ? ['--resend-uncertain'] : []));
          if (!resend && !caseids && uncertain.size > 0) {
            // The rest is sent; the uncertain lines are not, and the run says so (exit 5).
            expect(second.code).toBe(5);
            expect(second.err).toMatch(/not sending batch \d+ \(lines \d+-\d+\) again/);
            for (const l of uncertainLines(second.out)) expect(uncertain.has(l)).toBe(true);
          } else expect(second.code).toBe(0);

          // The judge: what the sandbox kept, per row (line i + 1 is row i).
          const got = new Map<string, number>();
          for (const e of received(sandbox)) got.set(e.callee, (got.get(e.callee) ?? 0) + 1);
          const retried = caseids && /it is sent again|every entry carries caseid/.test(first.err + second.err);
          for (let i = 1; i <= ROWS; i++) {
            const callee = `+62899${String(n).padStart(3, '0')}${String(i).padStart(4, '0')}`;
            const times = got.get(callee) ?? 0;
            const line = i + 1;
            if (uncertain.has(line) && !caseids) {
              // Reported uncertain: at most once more, and only when asked.
              expect(times, `line ${line}`).toBeLessThanOrEqual(resend ? 2 : 1);
              if (!resend) expect(times, `line ${line}`).toBeLessThanOrEqual(1);
            } else if (retried) {
              expect(times, `line ${line}`).toBeGreaterThanOrEqual(1);
              expect(times, `line ${line}`).toBeLessThanOrEqual(2);
            } else expect(times, `line ${line}`).toBe(1);
          }
          if (!caseids && !resend) {
            // Asked afterwards: the uncertain lines are sent once more, and the upload completes.
            const third = await update(path, '--resend-uncertain');
            expect(third.code).toBe(0);
            for (let i = 1; i <= ROWS; i++) {
              const callee = `+62899${String(n).padStart(3, '0')}${String(i).padStart(4, '0')}`;
              const before = got.get(callee) ?? 0;
              const after = received(sandbox).filter((e) => e.callee === callee).length;
              expect(after - before, `line ${i + 1}`).toBe(uncertain.has(i + 1) ? 1 : 0);
            }
          }
        });
      }
    }
  }
});

describe('upload killed with SIGKILL while a batch is in flight (rows without caseid)', () => {
  it('the re-run names the batch in flight as uncertain and sends the rest; --resend-uncertain sends it once more', async () => {
    const { spawn } = await import('node:child_process');
    const root = join(import.meta.dirname, '..', '..');
    const path = file(false);
    const id = n;
    // Slow answers: the kill lands after the service took batch 2 and before the client heard.
    sandbox.setFaults({ path: PATH, delayMs: 400 });
    const child = spawn(
      process.execPath,
      [
        join(root, 'bin/callctl.js'),
        'workflow',
        'update',
        '--workflow-id',
        WORKFLOW,
        '--csv',
        path,
        '--batch-size',
        '4',
        '--yes',
      ],
      {
        env: { ...process.env, ...env, NO_COLOR: '1' },
        stdio: 'ignore',
      },
    );
    const onUpdate = (e: { batch: number }) => {
      if (received(sandbox).length >= 8) child.kill('SIGKILL');
      void e;
    };
    sandbox.events.on('workflow.updated', onUpdate);
    const exit = await new Promise<string | null>((resolve) => child.on('exit', (_c, signal) => resolve(signal)));
    sandbox.events.off('workflow.updated', onUpdate);
    sandbox.resetFaults();
    expect(exit).toBe('SIGKILL');
    expect(received(sandbox)).toHaveLength(8);

    const again = await update(path);
    expect(again.code).toBe(5);
    expect(again.err).toMatch(/not sending batch 2 \(lines 6-9\) again: an earlier run sent it at \S+ with no answer/);
    expect(uncertainLines(again.out)).toEqual([6, 7, 8, 9]);
    const callee = (i: number) => `+62899${String(id).padStart(3, '0')}${String(i).padStart(4, '0')}`;
    const times = (i: number) => received(sandbox).filter((e) => e.callee === callee(i)).length;
    for (let i = 1; i <= ROWS; i++) expect(times(i), `row ${i}`).toBe(1);

    const asked = await update(path, '--resend-uncertain');
    expect(asked.code, asked.err).toBe(0);
    for (let i = 1; i <= ROWS; i++) expect(times(i), `row ${i}`).toBe(i >= 5 && i <= 8 ? 2 : 1);
  });
});

describe('an uncertain batch sent again later', () => {
  it("keeps its number for the same lines, never another batch's number: each line names its own batch and lines; up to line N counts accepted rows only", async () => {
    const file = join(dir, 'later.csv');
    writeFileSync(
      file,
      `callee,platform\n${Array.from({ length: 8 }, (_, i) => `+6281200007${10 + i},shop`).join('\n')}\n`,
    );
    const update = (...extra: string[]) =>
      runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--yes', '--batch-size', '2', ...extra], {
        env,
      });
    sandbox.setFaults({ failBatch: { index: 2, mode: 'drop-after-accept', repeat: 'once' } });
    expect((await update()).code).toBe(5);
    sandbox.resetFaults();
    // Without --resend-uncertain: the rest goes as batches 3 and 4; batch 2 (lines 4-5) stays uncertain.
    const rest = await update();
    expect(rest.err).toContain('continuing an earlier run: 1 batch (2 entries, up to line 3) already accepted');
    expect(rest.err).toContain('batch 3/4 sent: lines 6-7');
    expect(rest.err).toContain('batch 4/4 sent: lines 8-9');
    // Then with it: lines 4-5 go again as batch 2, as they went first (batch 4 was lines 8-9, and stays so).
    const again = await update('--resend-uncertain');
    expect(again.code, again.err).toBe(0);
    expect(again.err).toContain('sending again batch 2 (lines 4-5), which an earlier run sent with no answer');
    expect(again.err).toContain('batch 2/4 sent: lines 4-5');
    expect(again.err).not.toMatch(/batch [13-9]\/\d+ sent: lines 4-5/);
    // A batch size other than the first run's cuts other lines: numbered after every number used.
    expect((await update('--batch-size', '3')).err).toContain('this file was already uploaded');
  });
});
