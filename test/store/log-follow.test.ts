import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookRecord } from '../../src/store/events.js';
import { EventLog } from '../../src/store/files/event-log.js';
import { NdjsonEvents } from '../../src/store/files/events.js';
import { tempDir } from '../helpers/temp.js';

/* The event log follows its path when the file is moved away, replaced or deleted under it. */

const record = (id: string): HookRecord => ({
  v: 1,
  time: new Date().toISOString(),
  method: 'POST',
  path: '/',
  headers: {},
  body: JSON.stringify({ TaskID: id }),
  bytes: 0,
  type: 'task.end',
  duplicate: false,
  retry: 0,
  status: 200,
});

const logs: EventLog[] = [];
afterEach(async () => {
  for (const l of logs.splice(0)) await l.close();
});

function openLog(): { log: EventLog; path: string } {
  const path = join(tempDir('callctl-follow-'), 'events.ndjson');
  const log = EventLog.open(path);
  logs.push(log);
  return { log, path };
}

describe('the event log under rotation', () => {
  it('writes to the file created in place of one moved away (logrotate create), without a signal', async () => {
    const { log, path } = openLog();
    const a = await log.append(record('A'));
    renameSync(path, `${path}.1`);
    writeFileSync(path, '');
    await log.append(record('B'));
    expect(readFileSync(`${path}.1`, 'utf8')).toContain('"A\\"');
    expect(readFileSync(path, 'utf8')).toContain('"B\\"');
    expect(readFileSync(path, 'utf8')).not.toContain('"A\\"');
    // An offset in the file moved away reads as gone, never as another record.
    expect(log.readAt(a.offset)).toBeUndefined();
  });

  it('creates the log again when it was deleted, without a signal', async () => {
    const { log, path } = openLog();
    await log.append(record('A'));
    unlinkSync(path);
    const b = await log.append(record('B'));
    expect(readFileSync(path, 'utf8')).toContain('"B\\"');
    expect(log.readAt(b.offset)?.body).toContain('"B"');
  });

  it('goes on into a moved file while nothing is at its path yet (logrotate creates it next)', async () => {
    const { log, path } = openLog();
    await log.append(record('A'));
    renameSync(path, `${path}.1`);
    await log.append(record('B'));
    expect(readFileSync(`${path}.1`, 'utf8')).toContain('"B\\"');
    writeFileSync(path, '');
    await log.append(record('C'));
    expect(readFileSync(path, 'utf8')).toContain('"C\\"');
  });

  it('reopens at once on reopen() (SIGHUP)', async () => {
    const { log, path } = openLog();
    await log.append(record('A'));
    renameSync(path, `${path}.1`);
    expect(log.reopen()).toEqual({ ok: true, message: `reopened the log ${path}` });
    expect(existsSync(path)).toBe(true);
  });

  it('refuses records and is not ready while the path cannot be opened, and recovers by itself', async () => {
    const { log, path } = openLog();
    await log.append(record('A'));
    unlinkSync(path);
    mkdirSync(path);
    await expect(log.append(record('B'))).rejects.toThrow(/EISDIR/);
    expect(log.probe()).toMatch(/EISDIR/);
    expect(log.reopen().ok).toBe(false);
    rmdirSync(path);
    expect(log.probe()).toBeUndefined();
    await log.append(record('C'));
    expect(readFileSync(path, 'utf8')).toContain('"C\\"');
  });
});

describe('event numbers across files', () => {
  it('go on from the last one in a file created by a rotation and after a cut (copytruncate), as every reader reads them', async () => {
    const { log, path } = openLog();
    expect((await log.append(record('A'))).n).toBe(1);
    expect((await log.append(record('B'))).n).toBe(2);
    renameSync(path, `${path}.1`);
    writeFileSync(path, '');
    expect((await log.append(record('C'))).n).toBe(3);
    truncateSync(path, 0);
    expect((await log.append(record('D'))).n).toBe(4);
    expect((await log.append(record('E'))).n).toBe(5);
    const reader = NdjsonEvents.open(path);
    const read: string[] = [];
    for await (const e of reader.read({})) read.push(e.id);
    expect(read).toEqual(['4', '5']);
    const after: string[] = [];
    for await (const e of reader.read({}, '4')) after.push(e.id);
    expect(after).toEqual(['5']);
    const page = await reader.page({}, { limit: 1 });
    expect([page.events.map((e) => e.id), page.newest, page.more]).toEqual([['5'], '5', true]);
    expect((await reader.page({}, { before: '5', limit: 5 })).events.map((e) => e.id)).toEqual(['4']);
    expect((await reader.get('4'))?.record.body).toContain('"D"');
    expect(await reader.get('3')).toBeUndefined();
    // The file rotated away keeps its numbers too.
    const rotated: string[] = [];
    for await (const e of NdjsonEvents.open(`${path}.1`).read({})) rotated.push(e.id);
    expect(rotated).toEqual(['1', '2']);
  });

  it('go on from the rotated files after a restart on an empty log, and their window is remembered', async () => {
    const dir = tempDir('callctl-follow-');
    const path = join(dir, 'events.ndjson');
    const first = EventLog.open(path);
    const a = record('A');
    a.key = 'task.end:A';
    await first.append(a);
    await first.append(record('B'));
    await first.close();
    renameSync(path, `${path}.1`);
    const store = NdjsonEvents.open(path, { write: true });
    await store.recall(60_000, Date.now());
    expect(store.summary).toMatch(/2 recent records remembered \(2 from rotated files\)/);
    const again = record('A');
    again.key = 'task.end:A';
    const appended = await store.append(again, 'task.end:A', undefined);
    expect([appended.id, appended.retry]).toEqual(['3', 1]);
    await store.close();
  });
});
