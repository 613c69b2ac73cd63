import { copyFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { taskSign } from '../../src/signing/sign.js';
import type { HookRecord } from '../../src/state/event-log.js';
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
    expect(after[0]).toMatchObject({ duplicate: false, retry: 0, answer: 200 });
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
      answer: 200,
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
