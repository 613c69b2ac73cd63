import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { pushDestination } from '../../src/store/destination.js';
import { main } from '../../src/main.js';
import { testIO } from '../helpers/io.js';
import { runCli, type RunOptions } from '../helpers/cli.js';
import { pushCsv, received, tempDir, useSendSandbox, writeIn } from '../reach/helpers.js';

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
const results = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split(','));

describe('push --csv', () => {
  it('checks every row first: problems with line numbers, exit 3, nothing sent', async () => {
    const file = writeIn(
      dir,
      'bad.csv',
      'caller_id,client_name,debt_amount\n+6281000000001,A,10\n,B,11\n+6281000000003,C,1.2.3\n"+6281000000004","D\nE",12\n+6281000000001,F,13\n+6281000000006,G\n',
    );
    const r = await cli(['--csv', file, '--yes']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('line 3: caller_id is required');
    expect(r.err).toContain('line 7: caller_id +6281000000001 is also on line 2');
    expect(r.err).toContain('line 8: 2 fields, but the header has 3');
    expect(r.err).not.toContain('line 4:');
    expect(r.err).toMatch(/error: .*bad\.csv: 3 problems; nothing was sent/);
    expect(sandbox.requests).toHaveLength(0);
    const noColumn = await cli(['--csv', writeIn(dir, 'nocol.csv', 'number\n+6281000000001\n'), '--yes', '--json']);
    expect(noColumn.code).toBe(3);
    expect(JSON.parse(noColumn.err.trim().split('\n').at(-1)!).error.problems).toEqual([
      { line: 1, message: 'the header has no caller_id column' },
    ]);
  });

  it('checks the rows before it reads the push token: a bad file and no token say the file first (3), and read no stdin', async () => {
    const file = writeIn(dir, 'bad-no-token.csv', 'caller_id\n\n+6281000000001\n,\n');
    const r = await cli(['--csv', file, '--yes', '--push-token-stdin'], { stdin: '' });
    expect(r.code, r.err).toBe(3);
    expect(r.err).toContain('line 4: caller_id is required');
    expect(r.err).not.toContain('stdin was empty');
    expect(received(sandbox, '/flex/')).toHaveLength(0);
  });

  it('a Windows-1252 file is refused before anything is sent, naming the byte and how to convert it (never sent as "Jos\ufffd")', async () => {
    const file = `${dir}/cp1252.csv`;
    writeFileSync(
      file,
      Buffer.concat([Buffer.from('caller_id,client_name\n+6281000000001,Jos'), Buffer.from([0xe9, 0x0a])]),
    );
    const r = await cli(['--csv', file, '--yes']);
    expect(r.code, r.err).toBe(3);
    expect(r.err).toMatch(
      /cp1252\.csv: line 2, byte 19 \(byte 41 of the file\): not valid UTF-8 \(0xE9\); .*iconv -f windows-1252 -t utf-8 /,
    );
    expect(sandbox.requests).toHaveLength(0);
  });

  it('sends each row once at the rate, other columns and --var as variables, and writes the results', async () => {
    const file = writeIn(
      dir,
      'callers.csv',
      'caller_id,client_name,debt_amount,due_date\n+6281000000001,A,10,2026-12-01\n+6281000000002,,20,\n+6281000000003,C,30,2026-12-03\n',
    );
    const r = await cli(
      ['--csv', file, '--rate', '4', '--var', 'due_date=2026-12-31', '--var', 'product=loan', '--yes'],
      { realSleep: true },
    );
    expect(r.code, r.err).toBe(0);
    const pushes = sandbox.state.received.pushes;
    expect(pushes.map((p) => [p.caller_id, p.client_name, p.variables])).toEqual([
      ['+6281000000001', 'A', { due_date: '2026-12-01', product: 'loan', debt_amount: '10' }],
      ['+6281000000002', undefined, { due_date: '2026-12-31', product: 'loan', debt_amount: '20' }],
      ['+6281000000003', 'C', { due_date: '2026-12-03', product: 'loan', debt_amount: '30' }],
    ]);
    // Sequential sends 250 ms apart (4 per second; without pacing they would be ~2 ms apart, at
    // twice the rate 125 ms); arrivals on a loaded machine lag their start by up to ~90 ms, so the
    // gap is held to 160 ms. Measured after the first, whose connection set-up delays its arrival
    // but not its start.
    const times = pushes.map((p) => p.receivedAt);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(160);
    expect(results(`${dir}/callers.results.csv`)).toEqual(
      pushes.map((p, i) => [String(i + 1), String(i + 2), p.caller_id, 'sent', p.trace_id, '']),
    );
    expect(r.out).toMatch(/^sent\t3$/m);
    // The same file again: nothing is sent twice.
    const again = await cli(['--csv', file, '--yes', '--json', '--results', `${dir}/again.csv`]);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ total: 3, sent: 3, thisRun: { sent: 0 } });
    expect(pushes).toHaveLength(3);
    expect(results(`${dir}/again.csv`).map((r) => r[3])).toEqual(['sent', 'sent', 'sent']);
  });

  it('never twice: a connection dropped after the body stops the batch (5); the re-run sends the rest but not that row', async () => {
    const file = writeIn(dir, 'callers.csv', pushCsv(6));
    let n = 0;
    const arm = () => {
      if (++n === 2) sandbox.setFaults({ dropAfterBody: 1 });
    };
    sandbox.events.on('push.received', arm);
    const r = await cli(['--csv', file, '--yes', '--json']);
    sandbox.events.off('push.received', arm);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.out)).toMatchObject({
      sent: 2,
      uncertain: 1,
      skipped: 3,
      uncertainRows: [3],
      stopped: { reason: 'network' },
    });
    expect(r.err).toContain('row 3 (line 4) +628000000003: uncertain');
    expect(received(sandbox, '/flex/api/push/')).toHaveLength(3);
    const again = await cli(['--csv', file, '--yes', '--json']);
    // An uncertain row is exit 5 and an error line in every command (workflow update's batches too).
    expect(again.code).toBe(5);
    expect(again.err).toMatch(
      /error: 1 row may have reached people without an answer \(rows 3\); a run again never sends it/,
    );
    expect(JSON.parse(again.err.trim().split('\n').at(-1)!).error).toMatchObject({ kind: 'network', exitCode: 5 });
    expect(JSON.parse(again.out)).toMatchObject({ sent: 5, uncertain: 1, skipped: 0, thisRun: { sent: 3 } });
    const callers = received(sandbox, '/flex/api/push/').map((q) => JSON.parse(q.body).caller_id);
    expect(callers).toEqual([
      '+628000000001',
      '+628000000002',
      '+628000000003',
      '+628000000004',
      '+628000000005',
      '+628000000006',
    ]);
    expect(results(`${dir}/callers.results.csv`).map((r) => r[3])).toEqual([
      'sent',
      'sent',
      'uncertain',
      'sent',
      'sent',
      'sent',
    ]);
  });

  it('a wrong token: stops after 5 refusals (1), the token printed nowhere, and --retry-failed sends them again', async () => {
    const file = writeIn(dir, 'callers.csv', pushCsv(7));
    const wrong = 'wrong-token-c0ffee42';
    const r = await cli(['--csv', file, '--yes'], { env: { CALLCTL_PUSH_TOKEN: wrong } });
    expect(r.code).toBe(1);
    expect(r.err).toContain('refused 5 rows in a row');
    expect(r.err).toContain('unknown push token');
    expect(received(sandbox, '/flex/api/push/')).toHaveLength(5);
    const file1 = readFileSync(`${dir}/callers.results.csv`, 'utf8');
    expect(r.out + r.err + file1).not.toContain(wrong);
    expect(results(`${dir}/callers.results.csv`).map((r) => r[3])).toEqual([
      'failed',
      'failed',
      'failed',
      'failed',
      'failed',
      'skipped',
      'skipped',
    ]);
    const fixed = await cli(['--csv', file, '--yes', '--json']);
    expect(JSON.parse(fixed.out)).toMatchObject({ sent: 2, failed: 5 });
    const retried = await cli(['--csv', file, '--yes', '--json', '--retry-failed']);
    expect(retried.code, retried.err).toBe(0);
    expect(JSON.parse(retried.out)).toMatchObject({ sent: 7, failed: 0 });
    expect(sandbox.state.received.pushes).toHaveLength(7);
  });

  it('asks on a terminal with the count; needs --yes without one; a dry run sends nothing', async () => {
    const file = writeIn(dir, 'callers.csv', pushCsv(4));
    const declined = await cli(['--csv', file], { tty: true, answers: [false] });
    expect(declined.code).toBe(130);
    expect(declined.io.asked).toEqual(['Place 4 calls?']);
    expect(declined.err).toMatch(/to send now\s+4 at 5\/s/);
    expect(declined.err).toContain('line 2: +628000000001');
    const noTty = await cli(['--csv', file]);
    expect(noTty.code).toBe(2);
    const dry = await cli(['--csv', file, '--dry-run', '--json']);
    expect(dry.code).toBe(0);
    expect(JSON.parse(dry.out).requests.map((q: { body: { caller_id: string } }) => q.body.caller_id)).toHaveLength(4);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('counts in the right form: a 1-row file is "1 row", a 2-row file "2 rows" (dry run and confirmation)', async () => {
    for (const [n, rows] of [
      [1, 'row'],
      [2, 'rows'],
    ] as const) {
      const file = writeIn(dir, `count-${n}.csv`, pushCsv(n));
      const dry = await cli(['--csv', file, '--dry-run']);
      expect(dry.code, dry.err).toBe(0);
      expect(dry.err).toContain(`${n} of ${n} ${rows} would be sent`);
      const asked = await cli(['--csv', file], { tty: true, answers: [false] });
      expect(asked.code).toBe(130);
      expect(asked.err).toMatch(new RegExp(`file +\\S*count-${n}\\.csv \\(${n} ${rows}\\)\n`));
    }
    expect(sandbox.requests).toHaveLength(0);
  });

  it('Ctrl-C stops after the request in flight (130): nothing uncertain, the rest sent by the next run', async () => {
    const file = writeIn(dir, 'callers.csv', pushCsv(6));
    const io = testIO({ env });
    let interrupt: (() => void) | undefined;
    io.onSignal = (handler) => {
      interrupt = () => handler('SIGINT');
      return () => (interrupt = undefined);
    };
    const onPush = () => {
      if (sandbox.state.received.pushes.length === 2) interrupt?.();
    };
    sandbox.events.on('push.received', onPush);
    const code = await main(['push', '--csv', file, '--yes', '--json'], io);
    sandbox.events.off('push.received', onPush);
    expect(code).toBe(130);
    expect(io.err()).toContain('stopping after the request in flight');
    expect(JSON.parse(io.out())).toMatchObject({
      sent: 2,
      uncertain: 0,
      skipped: 4,
      stopped: { reason: 'interrupted' },
    });
    // The handler is gone after the first Ctrl-C: a second one would end the process at once.
    expect(interrupt).toBeUndefined();
    const again = await cli(['--csv', file, '--yes', '--json']);
    expect(JSON.parse(again.out)).toMatchObject({ sent: 6, thisRun: { sent: 4 } });
    expect(sandbox.state.received.pushes).toHaveLength(6);
  });

  it('warns when the same file path was sent before with other content (an edited file is a new batch; the ledger skips who was called)', async () => {
    const file = writeIn(dir, 'callers.csv', pushCsv(2));
    expect((await cli(['--csv', file, '--yes'])).code).toBe(0);
    writeFileSync(file, pushCsv(3));
    const r = await cli(['--csv', file, '--yes', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(
      /callers\.csv was sent before with other content .*people reached then are skipped by the ledger unless --call-again/,
    );
    expect(JSON.parse(r.out).thisRun.sent).toBe(1);
    expect(JSON.parse(r.out).skipped).toBe(2);
    const quiet = await cli(['--csv', file, '--yes']);
    expect(quiet.err).not.toContain('sent before');
  });

  it('refuses to run while another run holds the file, and does not mix --caller-id with --csv', async () => {
    const file = writeIn(dir, 'callers.csv', pushCsv(2));
    const sha = (await import('node:crypto')).createHash('sha256').update(readFileSync(file)).digest('hex');
    // The send's lock, as a run holding it leaves it (src/store/state.ts: <state>/locks/<hash of its name>.lock).
    const name = `push ${pushDestination(sandbox.flexUrl, 'live').text} ${sha}`;
    const locks = `${env.XDG_STATE_HOME}/callctl/locks`;
    (await import('node:fs')).mkdirSync(locks, { recursive: true });
    const hash = (await import('node:crypto')).createHash('sha256').update(name).digest('hex').slice(0, 24);
    writeFileSync(`${locks}/${hash}.lock`, `${process.pid}\n`);
    const locked = await cli(['--csv', file, '--yes']);
    expect(locked.code).toBe(2);
    expect(locked.err).toContain(`another push run of this file is running (pid ${process.pid}`);
    const both = await cli(['--csv', file, '--caller-id', '+6281000000001', '--yes']);
    expect(both.code).toBe(2);
    expect(sandbox.requests).toHaveLength(0);
  });
});

describe('push --csv line numbers (one CSV reader with workflow update)', () => {
  it('a bad row after a quoted field holding a CRLF is named by its own line (was 8 for line 6)', async () => {
    // line 1 header; 2; 3-4 (a quoted CRLF inside); 5; 6 the bad row (no caller_id)
    const text = [
      'caller_id,client_name,debt_amount',
      '+6281000000001,A,10',
      '+6281000000002,"B\r\nB",11',
      '+6281000000003,C,12',
      ',D,13',
      '',
    ].join('\r\n');
    const r = await cli(['--csv', writeIn(dir, 'crlf-quoted.csv', text), '--yes']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('line 6: caller_id is required');
    expect(r.err).not.toContain('line 8');
    expect(sandbox.requests).toHaveLength(0);
  });
});

describe('push --csv progress without a terminal', () => {
  it('prints timed lines as rows are sent (the first, the last, and one per second between)', async () => {
    const r = await cli(['--csv', writeIn(dir, 'piped.csv', pushCsv(3, 700)), '--rate', '1000', '--yes']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z calls: 1\/3, row 1 \(line 2\) \+628000000700: sent/m,
    );
    expect(r.err).toMatch(/^\S+Z calls: 3\/3, row 3 \(line 4\) \+628000000702: sent/m);
  });
});

describe('push --csv to https:// on a plain HTTP server', () => {
  it('stops at the first row (1) and records it as not sent, not uncertain: nothing left', async () => {
    const file = writeIn(dir, 'scheme.csv', pushCsv(2));
    const https = { CALLCTL_FLEX_URL: sandbox.flexUrl.replace('http://', 'https://') };
    const r = await cli(['--csv', file, '--yes', '--json'], { env: https });
    expect(r.code, r.err).toBe(1);
    expect(r.err).toMatch(/answers in plain HTTP|use http:\/\//);
    expect(sandbox.requests).toHaveLength(0);
    // The journal of that destination holds no uncertain row; the ledger clears the person.
    const state = JSON.parse((await runCli(['store', 'list', '--json'], { env: { ...env, ...https } })).out);
    expect(state.sends).toEqual([expect.objectContaining({ sent: 0, uncertain: 0 })]);
    const again = await cli(['--csv', file, '--yes', '--json']);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ sent: 2, uncertain: 0 });
  });
});
