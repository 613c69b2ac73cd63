import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { taskSign } from '../../src/signing/sign.js';
import { ensureBuilt, exited, serveHooksChild, type ChildHooks } from './child.js';
import { post, readRecords, tempDir, until } from './helpers.js';

const CLIENT = fileURLToPath(new URL('./drain-client.mjs', import.meta.url));
const KEY = 'drain-key';
let running: ChildHooks | undefined;
beforeAll(ensureBuilt);
afterEach(() => {
  running?.child.kill('SIGKILL');
  running = undefined;
});

describe('serve-hooks drains on SIGTERM', () => {
  it('under 5,000 requests: exits 0, every request answered or its connection closed, nothing acknowledged lost', async () => {
    const log = join(tempDir(), 'events.ndjson');
    running = await serveHooksChild(['--key', KEY, '--log', log, '--drain-timeout', '5']);
    const hooks = running;
    const client = spawn(process.execPath, [CLIENT, hooks.url, KEY, '5000', '32'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    let partial = '';
    client.stdout!.on('data', (c: Buffer) => {
      const got = (partial + c.toString()).split('\n');
      partial = got.pop()!;
      lines.push(...got);
    });
    const clientDone = new Promise<void>((r) => client.on('exit', () => r()));
    await until(() => lines.length >= 1500, 30_000);
    hooks.child.kill('SIGTERM');
    const end = await exited(hooks.child);
    await clientDone;
    expect(end).toEqual({ code: 0, signal: null });
    // Every one of the 5,000 settled: an answer, or a connection error the sender retries on.
    expect(lines).toHaveLength(5000);
    const acked = lines.filter((l) => l.endsWith(' 200')).map((l) => l.split(' ')[0]!);
    const other = lines.filter((l) => !l.endsWith(' 200'));
    expect(
      other.every((l) => / error (ECONNREFUSED|ECONNRESET|EPIPE|aborted)$/.test(l)),
      other.slice(0, 5).join('\n'),
    ).toBe(true);
    expect(acked.length).toBeGreaterThanOrEqual(1500);
    const logged = new Set(readRecords(log).map((r) => (JSON.parse(r.body!) as { TaskID: string }).TaskID));
    expect(acked.filter((id) => !logged.has(id))).toEqual([]);
    expect(hooks.stderr()).toMatch(/SIGTERM: stopping/);
    expect(hooks.stderr()).toMatch(/stopped: [\d,]+ events/);
    expect(hooks.stderr()).not.toMatch(/error:/);
  });

  it('a second signal stops at once (exit 130), without waiting for the drain timeout', async () => {
    const app = createServer(() => undefined); // takes forwards and never answers
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
    running = await serveHooksChild(['--key', KEY, '--forward-to', appUrl, '--drain-timeout', '60']);
    const hooks = running;
    const id = 'T-HANG';
    const body = JSON.stringify({ TaskID: id, TaskName: 'drain', Sign: taskSign(id, KEY) });
    expect((await post(hooks.url, body)).status).toBe(200);
    hooks.child.kill('SIGTERM');
    await until(() => /stopping/.test(hooks.stderr()), 5_000);
    // Still draining: /readyz would say so, and the forward is held.
    await new Promise((r) => setTimeout(r, 300));
    expect(hooks.child.exitCode).toBeNull();
    const t0 = Date.now();
    hooks.child.kill('SIGTERM');
    const end = await exited(hooks.child);
    expect(end.code).toBe(130);
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(hooks.stderr()).toMatch(/stopped at once on a second signal/);
    app.closeAllConnections();
    app.close();
  });
});
