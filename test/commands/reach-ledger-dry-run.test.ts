import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { pushCsv, tempDir, useSendSandbox, writeIn } from '../reach/helpers.js';
import { TEMPLATE_CSV_FLAGS } from '../helpers/template-send.js';

// Issue 12: --dry-run of push/template --csv says which rows the never-twice ledger would skip,
// and neither sends nor writes anything (no ledger, no journal).

describe('push --csv --dry-run and the ledger', () => {
  let sandbox: Sandbox;
  let env: Record<string, string>;
  let dir: string;
  useSendSandbox('push', (s, e) => {
    sandbox = s;
    env = e;
    dir = tempDir();
  });
  const push = (file: string, ...extra: string[]) =>
    runCli(['push', '--csv', file, '--rate', '1000', ...extra], { env });

  it('names the rows already reached through this destination, sends them nowhere, and --call-again / a window of 0 would send them', async () => {
    // nothing yet: a dry run creates no ledger
    const fresh = await push(writeIn(dir, 'fresh.csv', pushCsv(2)), '--dry-run', '--json');
    expect(fresh.code, fresh.err).toBe(0);
    expect(JSON.parse(fresh.out)).toMatchObject({ dryRun: true, skipped: [] });
    expect(
      existsSync(join(env.XDG_STATE_HOME!, 'callctl', 'ledgers')) &&
        readdirSync(join(env.XDG_STATE_HOME!, 'callctl', 'ledgers')).length,
    ).toBeFalsy();

    const sent = await push(writeIn(dir, 'first.csv', pushCsv(2)), '--yes');
    expect(sent.code, sent.err).toBe(0);
    expect(sandbox.state.received.pushes).toHaveLength(2);
    expect(readdirSync(join(env.XDG_STATE_HOME!, 'callctl', 'ledgers')).length).toBeGreaterThan(0);

    // another file: rows 1-2 are the people just called, row 3 is new
    const next = writeIn(dir, 'next.csv', pushCsv(3));
    const dry = await push(next, '--dry-run', '--json');
    expect(dry.code, dry.err).toBe(0);
    const d = JSON.parse(dry.out);
    expect(d.skipped.map((s: { row: number; line: number; who: string }) => [s.row, s.line, s.who])).toEqual([
      [1, 2, '+628000000001'],
      [2, 3, '+628000000002'],
    ]);
    for (const s of d.skipped) expect(Date.parse(s.reachedAt)).not.toBeNaN();
    expect(d.requests.map((r: { body: { caller_id: string } }) => r.body.caller_id)).toEqual(['+628000000003']);
    expect(dry.err).toMatch(
      /row 1 \(line 2\) \+628000000001: would be skipped: already reached through this destination at /,
    );
    expect(dry.err).toMatch(
      /1 of 3 rows would be sent, 2 already reached through this destination would be skipped; nothing was sent/,
    );
    expect(sandbox.state.received.pushes).toHaveLength(2);

    for (const flags of [['--call-again'], ['--recall-window', '0']]) {
      const again = await push(next, '--dry-run', '--json', ...flags);
      expect(JSON.parse(again.out).skipped, flags.join(' ')).toEqual([]);
      expect(JSON.parse(again.out).requests).toHaveLength(3);
    }
    // the run itself skips the same rows the dry run named
    const real = await push(next, '--yes', '--json');
    expect(real.code, real.err).toBe(0);
    expect(JSON.parse(real.out)).toMatchObject({ sent: 1, skipped: 2 });
    expect(sandbox.state.received.pushes.map((p) => p.caller_id)).toEqual([
      '+628000000001',
      '+628000000002',
      '+628000000003',
    ]);
  });
});

describe('template send --csv --dry-run and the ledger', () => {
  let sandbox: Sandbox;
  let env: Record<string, string>;
  let dir: string;
  useSendSandbox('template', (s, e) => {
    sandbox = s;
    env = e;
    dir = tempDir();
  });
  const FLAGS = TEMPLATE_CSV_FLAGS;
  const send = (file: string, ...extra: string[]) =>
    runCli(['template', 'send', ...FLAGS, '--csv', file, '--rate', '1000', ...extra], { env });

  it('names the recipients already messaged through this endpoint', async () => {
    expect((await send(writeIn(dir, 'a.csv', 'channel_id,user_id,name\n+6281000000001,u1,Ani\n'), '--yes')).code).toBe(
      0,
    );
    const dry = await send(
      writeIn(dir, 'b.csv', 'channel_id,user_id,name\n+6281000000002,u2,Budi\n+6281000000001,u1,Ani\n'),
      '--dry-run',
      '--json',
    );
    expect(dry.code, dry.err).toBe(0);
    const d = JSON.parse(dry.out);
    expect(d.skipped.map((s: { row: number; line: number }) => [s.row, s.line])).toEqual([[2, 3]]);
    expect(d.requests).toHaveLength(1);
    expect(sandbox.state.received.templates).toHaveLength(1);
  });
});
