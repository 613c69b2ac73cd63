// serve-hooks' header and request deadlines are flags (--header-timeout, --request-timeout):
// the built CLI, a raw socket that trickles a request, and the 408 it gets.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function serveHooks(args: string[]): Promise<string> {
  const child = spawn(process.execPath, ['bin/callctl.js', 'serve-hooks', '--port', '0', '--skip-verify', ...args], {
    cwd: ROOT,
    env: { ...process.env, CALLCTL_CONFIG_DIR: tempDir('callctl-cfg-') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve-hooks exited with ${code}: ${err}`)));
  });
}

/** Writes `text` and waits up to `waitMs` for the server to answer and close the connection. */
async function trickle(
  url: string,
  text: string,
  waitMs: number,
): Promise<{ answer: string; ms: number; closed: boolean }> {
  const { port } = new URL(url);
  const started = Date.now();
  const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
  let answer = '';
  socket.on('data', (c: Buffer) => (answer += c.toString()));
  const closed = new Promise<boolean>((r) => socket.on('close', () => r(true)));
  const gone = await Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), waitMs))]);
  socket.destroy();
  return { answer, ms: Date.now() - started, closed: gone };
}

const HEADERS_HALF = 'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n';
const BODY_HALF = 'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n{"a"';

describe('serve-hooks --header-timeout and --request-timeout', () => {
  it('answer 408 at the deadlines given, where the defaults (10 s, 30 s) would still wait', async () => {
    const quick = await serveHooks(['--header-timeout', '0.3', '--request-timeout', '0.6']);
    const headers = await trickle(quick, HEADERS_HALF, 5_000);
    expect(headers.answer).toMatch(/^HTTP\/1.1 408 /);
    expect(headers.ms).toBeLessThan(3_000);
    // A body too slow: 408 at the deadline, whether Node's own check or serve-hooks' per-socket
    // sweep sees it first.
    const body = await trickle(quick, BODY_HALF, 5_000);
    expect(body.closed).toBe(true);
    expect(body.answer).toMatch(/^HTTP\/1.1 408 /);
    expect(body.ms).toBeGreaterThanOrEqual(500);
    expect(body.ms).toBeLessThan(3_000);

    const defaults = await serveHooks([]);
    const waiting = await trickle(defaults, HEADERS_HALF, 1_500);
    expect(waiting.answer).toBe('');
    expect(waiting.closed).toBe(false);
  });

  it.each([
    [['--header-timeout', '0'], /--header-timeout/],
    [['--request-timeout', 'soon'], /--request-timeout/],
    [['--header-timeout', '20', '--request-timeout', '5'], /at least --header-timeout/],
  ])('refuses %j with exit 2', async (args, message) => {
    const r = await runCli(['serve-hooks', '--skip-verify', '--port', '0', ...args]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });
});
