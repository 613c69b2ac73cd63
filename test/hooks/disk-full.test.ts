import { copyFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { taskSign } from '../../src/signing/sign.js';
import type { HookRecord } from '../../src/store/events.js';
import { ensureBuilt, exited, serveHooksChild, type ChildHooks } from './child.js';
import { post, tempDir, until } from './helpers.js';

const KEY = 'disk-full-key';
const task = (id: string) => JSON.stringify({ TaskID: id, TaskName: 'disk full', Sign: taskSign(id, KEY) });
const JSON_HEADERS = { 'content-type': 'application/json' };

/** Every line of a log parsed; a line that does not parse fails the test (it would be lost to replay and dedup). */
function strictRecords(text: string): HookRecord[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as HookRecord);
}
const taskIds = (records: HookRecord[]) => records.map((r) => (JSON.parse(r.body!) as { TaskID: string }).TaskID);

let running: ChildHooks | undefined;
beforeAll(ensureBuilt);
afterEach(() => {
  running?.child.kill('SIGKILL');
  running = undefined;
});

describe('serve-hooks --log on a full disk (ulimit -f)', () => {
  it('answers 503 without marking the event seen, rolls the torn write back, and takes the retry as new once there is room', async () => {
    const forwarded: string[] = [];
    const app = createServer((req, res) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c.toString()));
      req.on('end', () => {
        forwarded.push((JSON.parse(b) as { TaskID: string }).TaskID);
        res.end('{}');
      });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
    const log = join(tempDir(), 'events.ndjson');
    running = await serveHooksChild(['--key', KEY, '--log', log, '--forward-to', appUrl], { fileLimitKiB: 8 });
    const hooks = running;

    const acked: string[] = [];
    let full: string | undefined;
    for (let i = 0; i < 100 && !full; i++) {
      const id = `T-FULL-${i}`;
      const a = await post(hooks.url, task(id), JSON_HEADERS);
      if (a.status === 200) acked.push(id);
      else {
        expect(a.status).toBe(503);
        full = id;
      }
    }
    expect(full, 'the file size limit was never reached').toBeDefined();
    expect(acked.length).toBeGreaterThan(3);
    // Still full: the service's retry is refused again, never acknowledged.
    expect((await post(hooks.url, task(full!), JSON_HEADERS)).status).toBe(503);
    // No torn fragment: every line of the full log reads back, and holds every acknowledged event.
    const before = strictRecords(readFileSync(log, 'utf8'));
    expect(taskIds(before)).toEqual(acked);

    // The operator makes room (as logrotate's copytruncate would); the service retries once more.
    const saved = `${log}.1`;
    copyFileSync(log, saved);
    truncateSync(log, 0);
    const retry = await post(hooks.url, task(full!), JSON_HEADERS);
    expect(retry.status).toBe(200);
    const after = strictRecords(readFileSync(log, 'utf8'));
    expect(after).toHaveLength(1);
    // A new event, not a retry of one that was never recorded; and it is forwarded.
    expect(after[0]).toMatchObject({ duplicate: false, retry: 0, status: 200 });
    await until(() => forwarded.includes(full!));
    expect(forwarded.filter((id) => id === full)).toHaveLength(1);
    expect(taskIds([...strictRecords(readFileSync(saved, 'utf8')), ...after])).toEqual([...acked, full]);
    app.close();
  });

  it('cuts a record torn by a crash off the end of the log on start, and says so', async () => {
    const log = join(tempDir(), 'events.ndjson');
    const whole = JSON.stringify({
      v: 1,
      time: new Date().toISOString(),
      method: 'POST',
      path: '/',
      headers: {},
      bytes: 0,
      type: 'task.end',
      duplicate: false,
      retry: 0,
      status: 200,
    });
    writeFileSync(log, `${whole}\n{"v":1,"time":"2026-11-23T1`);
    running = await serveHooksChild(['--key', KEY, '--log', log]);
    const hooks = running;
    await until(() => /cut \d+ bytes of a record cut short/.test(hooks.stderr()));
    expect((await post(running.url, task('T-AFTER-CRASH'), JSON_HEADERS)).status).toBe(200);
    const records = strictRecords(readFileSync(log, 'utf8'));
    expect(records).toHaveLength(2);
    expect(taskIds(records.slice(1))).toEqual(['T-AFTER-CRASH']);
    running.child.kill('SIGTERM');
    expect((await exited(running.child)).code).toBe(0);
  });
});

describe("serve-hooks' own output on a full disk", () => {
  it('goes on receiving when stdout cannot be written: every notification answered 200, told once on stderr, counted in the metrics, still ready', async () => {
    const dir = tempDir();
    const outFile = join(dir, 'serve-hooks.out');
    running = await serveHooksChild(['--key', KEY, '--metrics-path', '/metrics'], {
      fileLimitKiB: 4,
      stdoutFile: outFile,
    });
    const hooks = running;
    const answers: number[] = [];
    for (let i = 0; i < 60; i++) answers.push((await post(hooks.url, task(`T-OUT-${i}`), JSON_HEADERS)).status);
    expect(answers.filter((a) => a !== 200)).toEqual([]);
    // The output file reached its limit: what did not fit is lost, the receiver is not.
    await until(() => /cannot write to stdout/.test(hooks.stderr()));
    expect(readFileSync(outFile).length).toBeLessThanOrEqual(4096);
    expect(hooks.stderr().match(/cannot write to stdout/g)).toHaveLength(1);
    expect(hooks.stderr()).toContain('cannot write to stdout: file too large; receiving goes on');
    expect(hooks.child.exitCode).toBeNull();
    const ready = await fetch(`${hooks.url}/readyz`);
    expect(ready.status).toBe(200);
    const metrics = await (await fetch(`${hooks.url}/metrics`)).text();
    const lost = Number(/^callctl_hooks_output_lost_total (\d+)/m.exec(metrics)?.[1]);
    expect(lost).toBeGreaterThan(10);
    // One line per event: those written, the one cut at the limit (a short write) and those lost make all 60.
    const text = readFileSync(outFile, 'utf8');
    const whole = text.split('\n').filter((l) => l.endsWith('}')).length;
    expect(whole + (text.endsWith('\n') ? 0 : 1) + lost).toBe(60);
    // Room again (logrotate's copytruncate): the next event is written, and the gap is told.
    truncateSync(outFile, 0);
    expect((await post(hooks.url, task('T-OUT-AFTER'), JSON_HEADERS)).status).toBe(200);
    await until(() => readFileSync(outFile, 'utf8').includes('T-OUT-AFTER'));
    await until(() => hooks.stderr().includes('writing to stdout again'));
    expect(hooks.stderr()).toContain(`writing to stdout again: ${lost} lines lost meanwhile`);
    running.child.kill('SIGTERM');
    expect((await exited(running.child)).code).toBe(0);
  });
});
