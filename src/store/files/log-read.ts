import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { storedRecord, type HookRecord } from '../events.js';

/** One line of a log as its record; undefined for one that does not read (cut short by a crash). */
export function decodeRecord(line: string): HookRecord | undefined {
  try {
    const r = JSON.parse(line) as HookRecord;
    return r && typeof r === 'object' && typeof r.time === 'string' ? storedRecord(r) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The records received at or after `since` (ms), read backwards from the end of the file so that a
 * restart does not read a long history.
 */
export function readRecentRecords(path: string, since: number, chunkSize = 1 << 20): HookRecord[] {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  const found: HookRecord[] = [];
  try {
    let pos = fstatSync(fd).size;
    let carry = Buffer.alloc(0);
    let done = false;
    while (pos > 0 && !done) {
      const n = Math.min(chunkSize, pos);
      pos -= n;
      const buf = Buffer.alloc(n);
      readSync(fd, buf, 0, n, pos);
      let data = Buffer.concat([buf, carry]);
      // The text before the first newline may continue in the previous chunk: keep it for later.
      const cut = pos > 0 ? data.indexOf(0x0a) : -1;
      if (pos > 0 && cut < 0) {
        carry = data;
        continue;
      }
      carry = cut >= 0 ? data.subarray(0, cut) : Buffer.alloc(0);
      data = data.subarray(cut + 1);
      const lines = data.toString('utf8').split('\n');
      for (let i = lines.length - 1; i >= 0; i--) {
        const record = decodeRecord(lines[i]!);
        if (!record) continue;
        if (Date.parse(record.time) < since) {
          done = true;
          break;
        }
        found.push(record);
      }
    }
  } finally {
    closeSync(fd);
  }
  return found.reverse();
}
