import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { HEADER, received, row, useUploadSandbox, WORKFLOW } from '../upload/helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';

// A file of 4 MiB or more is checked as two halves at once, the second in a worker thread. The
// worker's script exists only in the build, so the built CLI (a child process) takes that path,
// while an in-process run from the sources checks the file in one piece: the two must agree on
// everything but where the batches are cut.
const bin = join(import.meta.dirname, '..', '..', 'bin', 'callctl.js');
const ROWS = 70_000;

let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
useUploadSandbox((s) => ({ sandbox, env, dir } = s));

function builtCli(
  args: string[],
  extraEnv: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...env, ...extraEnv, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

/** A contact file with bad rows and repeats placed by the caller; `edit(i)` may replace row i. */
function contacts(name: string, eol: string, edit: (i: number) => string | undefined, rows = ROWS): string {
  const lines = [HEADER];
  for (let i = 1; i <= rows; i++) lines.push(edit(i) ?? row(i, eol));
  const path = join(dir, name);
  writeFileSync(path, lines.join(eol) + eol);
  expect(readFileSync(path).length).toBeGreaterThan(4 << 20);
  return path;
}

/** The same upload through both paths; returns both summaries after comparing everything else. */
async function both(file: string, flags: string[]) {
  const args = (n: string) => [
    'workflow',
    'update',
    '--workflow-id',
    WORKFLOW,
    '--csv',
    file,
    '--yes',
    '--json',
    '--rejects',
    join(dir, `${n}.rejects.csv`),
    ...flags,
  ];
  sandbox.state.received.updates.clear();
  const splitState = join(dir, `split-${Math.random()}`);
  const split = await builtCli(args('split'), { CALLCTL_CONFIG_DIR: splitState, XDG_STATE_HOME: splitState });
  const splitEntries = [...received(sandbox)];
  sandbox.state.received.updates.clear();
  const wholeState = join(dir, `whole-${Math.random()}`);
  const whole = await runCli(args('whole'), {
    env: { ...env, CALLCTL_CONFIG_DIR: wholeState, XDG_STATE_HOME: wholeState },
  });
  const wholeEntries = [...received(sandbox)];
  expect(split.code, split.err).toBe(whole.code);
  const a = JSON.parse(split.out);
  const b = JSON.parse(whole.out);
  for (const key of [
    'status',
    'rowsRead',
    'valid',
    'invalid',
    'skipped',
    'problems',
    'problemCount',
    'entriesAcknowledged',
  ])
    expect(a[key], key).toEqual(b[key]);
  expect(readFileSync(join(dir, 'split.rejects.csv'), 'utf8')).toBe(
    readFileSync(join(dir, 'whole.rejects.csv'), 'utf8'),
  );
  expect(splitEntries).toEqual(wholeEntries);
  return { split: a, whole: b };
}

/** The line row i starts on: every 97th row has a quoted line break (see row()). */
const lineOf = (i: number) => 1 + i + Math.floor((i - 1) / 97);

const badCallee = (i: number) => row(i).replace(/^\+62812/, '62812');

describe('a large file checked in two halves at once', () => {
  it('gives what one pass gives: problems, rejects, entries; only the batch at the cut is shorter', async () => {
    // Bad rows in both halves, a row repeated within the second half, quoted line breaks throughout.
    const file = contacts('halves.csv', '\n', (i) =>
      i === 5 || i === 60_001 ? badCallee(i) : i === 65_000 ? row(64_000) : undefined,
    );
    const { split, whole } = await both(file, ['--max-invalid', '10']);
    expect(whole).toMatchObject({ status: 'done', invalid: 3, valid: ROWS - 3 });
    expect(whole.problems.map((p: { line: number }) => p.line)).toEqual([lineOf(5), lineOf(60_001), lineOf(65_000)]);
    expect(whole.problems[2].message).toBe(`duplicate of line ${lineOf(64_000)} (same callee and caseid)`);
    expect(split.batchesTotal).toBe(whole.batchesTotal + 1);
  });

  it('a row of the second half repeating one of the first is found as one pass finds it (CRLF file)', async () => {
    const file = contacts('repeats.csv', '\r\n', (i) => (i === 50_000 || i === 69_999 ? row(10, '\r\n') : undefined));
    const { split, whole } = await both(file, ['--max-invalid', '10']);
    expect(split.batchesTotal).toBe(whole.batchesTotal + 1);
    expect(whole.problems.map((p: { line: number; message: string }) => [p.line, p.message])).toEqual([
      [lineOf(50_000), `duplicate of line ${lineOf(10)} (same callee and caseid)`],
      [lineOf(69_999), `duplicate of line ${lineOf(10)} (same callee and caseid)`],
    ]);
  });

  it('the worker reads callees as the main thread does: spellings, --region, and a repeat in another spelling', async () => {
    // Row i's callee is +62812 and 8 digits: spelled with spaces, 00, or nationally (0812...).
    const spelled = (i: number, how: 'spaces' | '00' | 'national') => {
      const n = `812${String(i).padStart(8, '0')}`;
      const callee = how === 'spaces' ? `+62 ${n.slice(0, 3)} ${n.slice(3)}` : how === '00' ? `0062${n}` : `0${n}`;
      return row(i).replace(/^\+62812\d{8}/, `"${callee}"`);
    };
    const file = contacts('spelled.csv', '\n', (i) =>
      i === 7 || i === 60_007
        ? spelled(i, 'spaces')
        : i === 9 || i === 60_009
          ? spelled(i, '00')
          : i === 11 || i === 60_011
            ? spelled(i, 'national')
            : i === 66_000
              ? spelled(10, 'national')
              : undefined,
    );
    const { whole } = await both(file, ['--max-invalid', '10', '--region', 'ID']);
    expect(whole).toMatchObject({ status: 'done', invalid: 1, valid: ROWS - 1 });
    expect(whole.problems).toEqual([
      {
        line: lineOf(66_000),
        column: 'callee+caseid',
        message: `duplicate of line ${lineOf(10)} (same callee and caseid: 081200000010 is +6281200000010)`,
      },
    ]);
    const sent = new Map(received(sandbox).map((e) => [e.caseid, e.callee]));
    for (const i of [7, 9, 11, 60_007, 60_009, 60_011])
      expect(sent.get(`C${i}`)).toBe(`+62812${String(i).padStart(8, '0')}`);
    // Two uploads of 70,000 rows: on a loaded machine they take longer than the default 30 s.
  }, 120_000);

  it('an invalid file stops both ways with the same problems and exit 3', async () => {
    const file = contacts('invalid.csv', '\n', (i) => (i % 5_000 === 0 ? badCallee(i) : undefined));
    const { whole } = await both(file, []);
    expect(whole).toMatchObject({ status: 'invalid', invalid: 14, problemCount: 14 });
  });

  it('a broken quote in the second half is reported at its line, as one pass reports it', async () => {
    const file = contacts('broken.csv', '\n', (i) =>
      i === 60_000 ? `+6281200060000,shop,C60000,"Name, Jr,1.50,,` : undefined,
    );
    const args = (config: string) => [
      'workflow',
      'update',
      '--workflow-id',
      WORKFLOW,
      '--csv',
      file,
      '--yes',
      '--config-dir',
      join(dir, config),
    ];
    const split = await builtCli(args('broken-split'), {});
    const whole = await runCli(args('broken-whole'), { env });
    expect(whole.code).toBe(3);
    expect(split.code).toBe(3);
    // Without a terminal each line starts with its time, which differs between the two runs.
    const untimed = (text: string) => text.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /gm, '');
    expect(untimed(split.err)).toBe(untimed(whole.err));
    expect(whole.err).toContain(`line ${lineOf(60_000)}: `);
  });

  it('a first half that fails stops the worker and leaves no file behind (rejects, spools)', async () => {
    const file = contacts('broken-head.csv', '\n', (i) =>
      i === 20_000 ? `+6281200020000,shop,C20000,"Name, Jr,1.50,,` : undefined,
    );
    const out = join(dir, 'head-out');
    mkdirSync(out);
    const config = join(dir, 'head-config');
    const res = await builtCli(
      ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--yes', '--rejects', join(out, 'rejects.csv')],
      { CALLCTL_CONFIG_DIR: config, XDG_STATE_HOME: config, XDG_CACHE_HOME: join(config, 'cache') },
    );
    expect(res.code, res.err).toBe(3);
    expect(res.err).toContain(`line ${lineOf(20_000)}: `);
    expect(readdirSync(out)).toEqual([]);
    expect(readdirSync(join(config, 'callctl', 'uploads')).filter((f) => !f.endsWith('.journal'))).toEqual([]);
    expect(readdirSync(join(config, 'cache', 'callctl', 'spool'))).toEqual([]);
  });

  it('Ctrl-C while both halves are being read stops the worker and leaves no file behind', async () => {
    // 40 MB: each half takes about a second to read, and the worker starts within a few tenths.
    const file = contacts('interrupted.csv', '\n', () => undefined, 500_000);
    const out = join(dir, 'int-out');
    mkdirSync(out);
    const config = join(dir, 'int-config');
    const child = spawn(
      process.execPath,
      [
        bin,
        'workflow',
        'update',
        '--workflow-id',
        WORKFLOW,
        '--csv',
        file,
        '--yes',
        '--rejects',
        join(out, 'rejects.csv'),
      ],
      {
        env: {
          ...process.env,
          ...env,
          CALLCTL_CONFIG_DIR: config,
          XDG_STATE_HOME: config,
          XDG_CACHE_HOME: join(config, 'cache'),
          NO_COLOR: '1',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    const exited = new Promise((resolve) => child.on('exit', (c) => resolve(c)));
    // Ctrl-C once the check has begun writing its spool (the run's signal handler is installed
    // before that), not after a fixed delay: on a loaded machine 600 ms could still be module loading.
    const spool = join(config, 'cache', 'callctl', 'spool');
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && (!existsSync(spool) || readdirSync(spool).length === 0))
      await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGINT');
    const code = await exited;
    expect(code, err).toBe(130);
    expect(err).toContain('nothing was sent');
    expect(readdirSync(out)).toEqual([]);
    expect(readdirSync(join(config, 'callctl', 'uploads'))).toEqual([]);
    expect(readdirSync(join(config, 'cache', 'callctl', 'spool'))).toEqual([]);
  });
});
