import { existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookRecord } from '../../src/store/events.js';
import { EventLog } from '../../src/store/files/event-log.js';
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
    expect(log.readAt(a)).toBeUndefined();
  });

  it('creates the log again when it was deleted, without a signal', async () => {
    const { log, path } = openLog();
    await log.append(record('A'));
    unlinkSync(path);
    const b = await log.append(record('B'));
    expect(readFileSync(path, 'utf8')).toContain('"B\\"');
    expect(log.readAt(b)?.body).toContain('"B"');
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
