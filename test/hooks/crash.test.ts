import { execSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { readRecords, tempDir } from './helpers.js';
import { request } from 'node:http';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LOAD = fileURLToPath(new URL('./load-client.mjs', import.meta.url));
const KEY = 'crash-test-key';

beforeAll(() => {
  // The children run the built CLI (`npm test` builds first); build when it is missing.
  if (!existsSync(join(ROOT, 'dist/main.js'))) execSync('npm run build', { cwd: ROOT, stdio: 'ignore' });
});

/** Starts the built `callctl serve-hooks` and resolves with the child and its URL. */
function serveHooks(args: string[]): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, ['bin/callctl.js', 'serve-hooks', '--port', '0', '--key', KEY, ...args], {
    cwd: ROOT,
    env: { ...process.env, CALLCTL_CONFIG_DIR: tempDir('callctl-cfg-') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(err);
      if (m) resolve({ child, url: m[1]!, stderr: () => err });
    });
    child.on('exit', (code) => reject(new Error(`serve-hooks exited with ${code}: ${err}`)));
  });
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.on('exit', (code, signal) => resolve({ code, signal }));
  });

describe.each([[[]], [['--fsync']]])('serve-hooks --log %j killed with SIGKILL under load', (extra: string[]) => {
  it('has every request it answered 200 in its log', async () => {
    const log = join(tempDir(), 'events.ndjson');
    const hooks = await serveHooks(['--log', log, ...extra]);
    const load = spawn(process.execPath, [LOAD, hooks.url, KEY, '16'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acked: string[] = [];
    let partial = '';
    const enough = new Promise<void>((resolve) => {
      load.stdout!.on('data', (c: Buffer) => {
        const lines = (partial + c.toString()).split('\n');
        partial = lines.pop()!;
        acked.push(...lines);
        if (acked.length >= 400) resolve();
      });
    });
    await Promise.race([enough, new Promise((r) => setTimeout(r, 8_000))]);
    hooks.child.kill('SIGKILL');
    expect((await exited(hooks.child)).signal).toBe('SIGKILL');
    // The load ends by itself once every connection fails; what it printed is every 200 it got.
    await exited(load);
    expect(acked.length).toBeGreaterThanOrEqual(400);
    const logged = new Set(readRecords(log).map((r) => (JSON.parse(r.body ?? '{}') as { TaskID?: string }).TaskID));
    const missing = acked.filter((id) => !logged.has(id));
    expect(missing).toEqual([]);
  });
});

describe('serve-hooks on SIGTERM', () => {
  it('stops accepting, finishes the request in flight, flushes the log and exits 0', async () => {
    const log = join(tempDir(), 'events.ndjson');
    const hooks = await serveHooks(['--log', log]);
    const { port } = new URL(hooks.url);
    const net = await import('node:net');
    // A request whose body is still coming when the signal arrives.
    const body = JSON.stringify({ TaskID: 'T-INFLIGHT', Sign: '0'.repeat(32) });
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 100));
    hooks.child.kill('SIGTERM');
    // No new connection is accepted any more, once the signal is taken (a fresh connection each try).
    const refused = () =>
      new Promise<boolean>((resolve) =>
        request(`${hooks.url}/healthz`, { agent: false }, (res) => resolve(res.resume() && false))
          .on('error', () => resolve(true))
          .end(),
      );
    let gone = false;
    for (const end = Date.now() + 5_000; !gone && Date.now() < end;) {
      gone = await refused();
      if (!gone) await new Promise((r) => setTimeout(r, 20));
    }
    expect(gone).toBe(true);
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    const closed = new Promise((r) => socket.on('close', r));
    socket.write(body.slice(10)); // the rest of the body; the server closes the connection after answering
    const exit = await exited(hooks.child);
    await closed;
    expect(exit, hooks.stderr()).toEqual({ code: 0, signal: null });
    expect(answer).toMatch(/^HTTP\/1.1 401 /); // answered (its Sign is wrong), not dropped
    expect(readRecords(log).map((r) => r.status)).toEqual([401]);
    expect(hooks.stderr()).toMatch(/stopped: 1 event\b/);
  });
});
