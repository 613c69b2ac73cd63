import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { redactValues } from '../../redact.js';
import { storedRecord, type HookRecord } from '../events.js';

/**
 * A record as its log line. Known secrets (hook KEYs, chatbot secret, a secret --path) never
 * reach the file in what callctl writes of a request (headers, reasons, warnings, errors). The
 * body and the event's identity are the sender's data and are kept as they came: replay sends
 * the body byte for byte, and a restart tells retries by their identity. Redacting them changed
 * events whose text held a KEY by chance (a TaskID `T-812345` under the KEY `12345`): replayed
 * altered, and their retries taken as new.
 */
export function recordLine(record: HookRecord): string {
  const whole = JSON.stringify(record);
  // The usual record holds no secret at all: one pass tells.
  if (redactValues(whole) === whole) return `${whole}\n`;
  const { body, key, ...rest } = record;
  let line = redactValues(JSON.stringify(rest));
  if (body !== undefined || key !== undefined) {
    line = `${line.slice(0, -1)}${body !== undefined ? `,"body":${JSON.stringify(body)}` : ''}${key !== undefined ? `,"key":${JSON.stringify(key)}` : ''}}`;
  }
  return `${line}\n`;
}

/** One line of a log as its record; undefined for one that does not read (cut short by a crash). */
export function decodeRecord(line: string): HookRecord | undefined {
  return decodeNumbered(line)?.record;
}

/**
 * One line of a log as its record and the number written in it (`n`: undefined in a line of an
 * earlier version). The record goes without it: readers give the number as the event's id.
 */
export function decodeNumbered(line: string): { record: HookRecord; n: number | undefined } | undefined {
  try {
    const r = JSON.parse(line) as HookRecord;
    if (!r || typeof r !== 'object' || typeof r.time !== 'string') return undefined;
    const n = Number.isSafeInteger(r.n) ? r.n : undefined;
    if (r.n !== undefined) r.n = undefined;
    return { record: storedRecord(r), n };
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

/**
 * What a log's first line is numbered after: its first record that reads says (`n` less its line
 * number); 0 for a log of an earlier version, numbered from 1; undefined while it holds no record.
 */
export function logBase(fd: number): number | undefined {
  const chunk = Buffer.alloc(64 * 1024);
  let carry = Buffer.alloc(0);
  let line = 0;
  for (let pos = 0; ;) {
    const got = readSync(fd, chunk, 0, chunk.length, pos);
    if (got <= 0) return undefined;
    pos += got;
    const data = carry.length ? Buffer.concat([carry, chunk.subarray(0, got)]) : chunk.subarray(0, got);
    let s = 0;
    for (let e = data.indexOf(0x0a); e >= 0; e = data.indexOf(0x0a, s)) {
      line += 1;
      const decoded = decodeNumbered(data.toString('utf8', s, e));
      if (decoded) return decoded.n === undefined ? 0 : decoded.n - line;
      // Lines that do not read are rare (a crash, a hand edit): past a thousand, none is numbered.
      if (line >= 1000) return 0;
      s = e + 1;
    }
    carry = Buffer.from(data.subarray(s));
  }
}
