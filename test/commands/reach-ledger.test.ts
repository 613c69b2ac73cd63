import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { normaliseUrl } from '../../src/store/destination.js';
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

const push = (file: string, extra: string[] = [], options: RunOptions = {}) =>
  runCli(['push', '--csv', file, '--rate', '1000', '--yes', '--json', ...extra], {
    ...options,
    env: { ...env, ...options.env },
  });
const pushes = () => received(sandbox, '/flex/api/push/').length;
/** How many pushes each caller got, from what the sandbox received. */
function callsPerCaller(): Map<string, number> {
  const m = new Map<string, number>();
  for (const p of sandbox.state.received.pushes) {
    m.set(p.caller_id, (m.get(p.caller_id) ?? 0) + 1);
  }
  return m;
}

describe('the never-twice ledger of push --csv', () => {
  it('one spelling per address', () => {
    expect(normaliseUrl('HTTP://LocalHost:8080/flex/')).toBe('http://127.0.0.1:8080/flex');
    expect(normaliseUrl('https://Flex.Example.com:443//api/')).toBe('https://flex.example.com/api');
  });

  it('a renamed file, a CRLF copy, an appended row and another spelling of the URL call nobody twice', async () => {
    const first = await push(writeIn(dir, 'callers.csv', pushCsv(3)));
    expect(first.code, first.err).toBe(0);
    expect(pushes()).toBe(3);

    // The same file under another name: nobody called again.
    const renamed = await push(writeIn(dir, 'renamed.csv', pushCsv(3)));
    expect(renamed.code, renamed.err).toBe(0);
    expect(JSON.parse(renamed.out).thisRun).toMatchObject({ sent: 0 });
    expect(pushes()).toBe(3);

    // A CRLF copy (other bytes, so another journal): the ledger knows the people. Skipped, reported, exit 0.
    const crlf = await push(writeIn(dir, 'crlf.csv', pushCsv(3).replace(/\n/g, '\r\n')));
    expect(crlf.code, crlf.err).toBe(0);
    expect(crlf.err).toMatch(
      /row 1 \(line 2\) \+628000000001: skipped: already reached through this destination at \S+ \(within --recall-window\)/,
    );
    expect(JSON.parse(crlf.out)).toMatchObject({ sent: 0, skipped: 3 });
    expect(pushes()).toBe(3);

    // One row appended: only the new person is called.
    const appended = await push(writeIn(dir, 'appended.csv', pushCsv(4)));
    expect(appended.code).toBe(0);
    expect(JSON.parse(appended.out)).toMatchObject({ sent: 1, skipped: 3 });
    expect(pushes()).toBe(4);

    // Another spelling of the flex-route address (host case, localhost, trailing slash).
    const other = env.CALLCTL_FLEX_URL!.replace('127.0.0.1', 'LOCALHOST') + '/';
    expect(other).not.toBe(env.CALLCTL_FLEX_URL);
    const spelled = await push(writeIn(dir, 'spelled.csv', pushCsv(4)), [], { env: { CALLCTL_FLEX_URL: other } });
    expect(spelled.code, spelled.err).toBe(0);
    expect(pushes()).toBe(4);
    for (const n of callsPerCaller().values()) expect(n).toBe(1);

    // --call-again reaches them again, on purpose; a window of 0 turns the check off too.
    const again = await push(writeIn(dir, 'again.csv', pushCsv(2).replace(/Client/g, 'Again')), ['--call-again']);
    expect(again.code).toBe(0);
    expect(pushes()).toBe(6);
  });

  it('a window that has passed lets the person be called again; --recall-window is checked', async () => {
    const first = await push(writeIn(dir, 'w1.csv', pushCsv(1, 50)));
    expect(first.code, first.err).toBe(0);
    const soon = await push(writeIn(dir, 'w2.csv', pushCsv(1, 50).replace('Client', 'Klient')), [
      '--recall-window',
      '1h',
    ]);
    expect(JSON.parse(soon.out)).toMatchObject({ sent: 0, skipped: 1 });
    await new Promise((r) => setTimeout(r, 120));
    const later = await push(writeIn(dir, 'w3.csv', pushCsv(1, 50).replace('Client', 'Cliente')), [
      '--recall-window',
      '100ms',
    ]);
    expect(JSON.parse(later.out)).toMatchObject({ sent: 1, skipped: 0 });
    expect(pushes()).toBe(2);
    const bad = await push(writeIn(dir, 'w4.csv', pushCsv(1, 50)), ['--recall-window', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--recall-window');
  });
});
