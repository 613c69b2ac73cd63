import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { defaultResultsPath } from '../../src/reach/results.js';
import { runCli, type RunOptions } from '../helpers/cli.js';
import { pushCsv, tempDir, useSendSandbox, writeIn } from '../reach/helpers.js';
import { TEMPLATE_CSV_FLAGS } from '../helpers/template-send.js';

// Issue 12 item 7 for push and template send: without a terminal every progress, warning and
// error line on stderr starts with an ISO-8601 time (the final `error:` line too); --quiet prints
// errors only; the --csv --json summary is one line with start and end time.

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;
const allTimed = (err: string) => {
  const lines = err.trimEnd().split('\n');
  for (const line of lines) expect(line).toMatch(ISO);
  return lines;
};

describe('push: cron-grade output', () => {
  let sandbox: Sandbox;
  let env: Record<string, string>;
  let dir: string;
  useSendSandbox('push', (s, e) => {
    sandbox = s;
    env = e;
    dir = tempDir();
  });
  const cli = (argv: string[], options: RunOptions = {}) =>
    runCli(['push', ...argv], { ...options, env: { ...env, ...options.env } });

  it('--csv --json: timed progress lines, a one-line summary with start, end, rows, valid, invalid, sent, uncertain, skipped and the results file', async () => {
    const file = writeIn(dir, 'calls.csv', pushCsv(3));
    const r = await cli(['--csv', file, '--rate', '1000', '--yes', '--json']);
    expect(r.code, r.err).toBe(0);
    allTimed(r.err);
    expect(r.out.trimEnd().split('\n')).toHaveLength(1);
    const s = JSON.parse(r.out);
    expect(s).toMatchObject({
      rows: 3,
      valid: 3,
      invalid: 0,
      sent: 3,
      uncertain: 0,
      skipped: 0,
      results: `${dir}/calls.results.csv`,
    });
    expect(s.startedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(s.endedAt)).toBeGreaterThanOrEqual(Date.parse(s.startedAt));
    expect(existsSync(`${dir}/calls.results.csv`)).toBe(true);
    expect(sandbox.state.received.pushes).toHaveLength(3);
  });

  it('the final error line, the problem lines and the warnings carry their time without a terminal', async () => {
    const bad = await cli(['--csv', writeIn(dir, 'bad.csv', 'caller_id\n+6281000000001\n\n+6281000000001\n'), '--yes']);
    expect(bad.code).toBe(3);
    const lines = allTimed(bad.err);
    expect(lines.at(-1)).toMatch(/Z error: .*bad\.csv: 1 problem; nothing was sent$/);
    const noYes = await cli(['--csv', writeIn(dir, 'noyes.csv', pushCsv(1))]);
    expect(noYes.code).toBe(2);
    // A usage error is the same plain line as in every command (and as commander's own).
    expect(noYes.err).toMatch(/^error: this reaches real people: confirm with --yes/);
    const missing = await cli(['--var', 'a=1', '--yes']);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^error: missing --caller-id/);
    // --json errors stay JSON (the last line), after the timed error line
    const json = await cli(['--csv', writeIn(dir, 'bad2.csv', 'caller_id\n+621\n\n+621\n'), '--yes', '--json']);
    expect(json.err).toMatch(ISO);
    expect(JSON.parse(json.err.trim().split('\n').at(-1)!).error.exitCode).toBe(3);
    // a person reached within the window: the skip warning is timed
    const file = writeIn(dir, 'again.csv', pushCsv(2, 50));
    await cli(['--csv', file, '--rate', '1000', '--yes']);
    const again = await cli([
      '--csv',
      writeIn(dir, 'again2.csv', pushCsv(2, 50) + '+628999999999,Z,1\n'),
      '--rate',
      '1000',
      '--yes',
    ]);
    expect(again.code, again.err).toBe(0);
    expect(allTimed(again.err).filter((l) => /warning: row \d .*skipped: already reached/.test(l))).toHaveLength(2);
  });

  it('on a terminal the lines keep their plain form', async () => {
    const r = await cli(['--csv', writeIn(dir, 'tty.csv', 'caller_id\n+6281000000001\n+6281000000001\n'), '--yes'], {
      tty: true,
    });
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^ *line 3: caller_id \+6281000000001 is also on line 2/m);
    expect(r.err).toMatch(/^error: /m);
    expect(r.err).not.toMatch(/\d{4}-\d\d-\d\dT/);
  });

  it('--quiet prints errors only, with and without --csv; --json still prints the summary', async () => {
    const one = await cli(['--caller-id', '+6281000000081', '--yes', '--quiet']);
    expect(one.code, one.err).toBe(0);
    expect(one.out).toBe('');
    expect(one.err).toBe('');
    const many = await cli(['--csv', writeIn(dir, 'quiet.csv', pushCsv(3, 10)), '--rate', '1000', '--yes', '--quiet']);
    expect(many.code, many.err).toBe(0);
    expect(many.out).toBe('');
    expect(many.err).toBe('');
    const json = await cli([
      '--csv',
      writeIn(dir, 'quiet-json.csv', pushCsv(2, 20)),
      '--rate',
      '1000',
      '--yes',
      '--quiet',
      '--json',
    ]);
    expect(json.err).toBe('');
    expect(JSON.parse(json.out)).toMatchObject({ rows: 2, sent: 2 });
    // a refused row is an error: its line stays, timed, and the exit code says so
    sandbox.setFaults({ path: '/flex/api/push/', fail500: 1 });
    const refused = await cli([
      '--csv',
      writeIn(dir, 'quiet-fail.csv', pushCsv(3, 30)),
      '--rate',
      '1000',
      '--yes',
      '--quiet',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.out).toBe('');
    const lines = allTimed(refused.err);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/row 1 \(line 2\) \+628000000030: failed/);
    const oneFails = await cli([
      '--caller-id',
      '+6281000000082',
      '--yes',
      '--quiet',
      '--flex-url',
      'http://127.0.0.1:9',
    ]);
    expect(oneFails.code).toBe(5);
    expect(oneFails.err.trim().split('\n')).toHaveLength(1);
    expect(oneFails.err).toMatch(/^\d{4}-\S+Z error: /);
  });

  it('the results file is named as --help says', async () => {
    const help = await cli(['--help']);
    const m = /results file \(default: beside the input, its \.csv replaced: (\S+) gives (\S+?)\)/.exec(
      help.out.replace(/\s+/g, ' '),
    );
    expect(m, help.out).not.toBeNull();
    expect(defaultResultsPath(m![1]!)).toBe(m![2]);
    const file = writeIn(dir, m![1]!, pushCsv(1, 40));
    const r = await cli(['--csv', file, '--yes', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).results).toBe(`${dir}/${m![2]}`);
    expect(readFileSync(`${dir}/${m![2]}`, 'utf8')).toMatch(/\+628000000040,sent/);
  });
});

describe('template send: cron-grade output', () => {
  let env: Record<string, string>;
  let dir: string;
  const FLAGS = TEMPLATE_CSV_FLAGS;
  useSendSandbox('template', (_s, e) => {
    env = e;
    dir = tempDir();
  });
  const cli = (argv: string[], options: RunOptions = {}) =>
    runCli(['template', 'send', ...FLAGS, ...argv], { ...options, env: { ...env, ...options.env } });

  it('--csv --json: timed lines and a one-line summary with start and end', async () => {
    const r = await cli([
      '--csv',
      writeIn(dir, 'people.csv', 'channel_id,user_id,name\n+6281000000001,u1,Ani\n+6281000000002,u2,Budi\n'),
      '--rate',
      '1000',
      '--yes',
      '--json',
    ]);
    expect(r.code, r.err).toBe(0);
    allTimed(r.err);
    expect(r.out.trimEnd().split('\n')).toHaveLength(1);
    const s = JSON.parse(r.out);
    expect(s).toMatchObject({
      rows: 2,
      valid: 2,
      invalid: 0,
      sent: 2,
      uncertain: 0,
      skipped: 0,
      results: `${dir}/people.results.csv`,
    });
    expect(Date.parse(s.endedAt)).toBeGreaterThanOrEqual(Date.parse(s.startedAt));
  });

  it('--quiet prints errors only, with and without --csv; the final error line is timed', async () => {
    const one = await cli([
      '--channel-id',
      '+6281000000001',
      '--user-id',
      'u1',
      '--var',
      'name=Ani',
      '--yes',
      '--quiet',
    ]);
    expect(one.code, one.err).toBe(0);
    expect(one.out + one.err).toBe('');
    const many = await cli([
      '--csv',
      writeIn(dir, 'quiet.csv', 'channel_id,user_id,name\n+6281000000003,u3,Citra\n'),
      '--rate',
      '1000',
      '--yes',
      '--quiet',
    ]);
    expect(many.code, many.err).toBe(0);
    expect(many.out + many.err).toBe('');
    const bad = await cli(['--channel-id', '+6281000000004', '--user-id', 'u4', '--var', 'name=Dewi', '--quiet']);
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(bad.err).toMatch(/^error: this reaches real people/);
  });
});
