import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { redactValues } from '../../redact.js';
import type { HookRecord } from '../events.js';

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
    return { record: r, n };
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
    eachLineBackward(fd, lastRecordEnd(fd, fstatSync(fd).size), chunkSize, (line) => {
      const record = decodeRecord(line.toString('utf8'));
      if (record && Date.parse(record.time) < since) return false;
      if (record) found.push(record);
    });
  } finally {
    closeSync(fd);
  }
  return found.reverse();
}

/**
 * Calls `each` with the lines of a file that end before `end` (just after a newline, or 0), last
 * first, each without its newline and with where it starts, until it returns false. Read
 * backwards a chunk at a time into one buffer (the part of a line left from the last read moved
 * behind the next one), so what it costs grows with the lines read, not with the file. A line
 * is valid only during its call.
 */
export function eachLineBackward(
  fd: number,
  end: number,
  chunkSize: number,
  each: (line: Buffer, start: number) => boolean | void,
): void {
  let work = Buffer.allocUnsafe(chunkSize * 2);
  let data = work.subarray(0, 0);
  for (let pos = end; ;) {
    let e = data.length;
    while (e > 0) {
      // data[e - 1] ends this line; the newline before it ends the one before.
      const nl = e >= 2 ? data.lastIndexOf(0x0a, e - 2) : -1;
      if (nl < 0 && pos > 0) break;
      if (each(data.subarray(nl + 1, e - 1), pos + nl + 1) === false) return;
      e = nl + 1;
    }
    if (pos === 0) return;
    const n = Math.min(chunkSize, pos);
    pos -= n;
    if (n + e > work.length) {
      const bigger = Buffer.allocUnsafe(2 * (n + e));
      data.copy(bigger, n, 0, e);
      work = bigger;
    } else data.copy(work, n, 0, e);
    readSync(fd, work, 0, n, pos);
    data = work.subarray(0, n + e);
  }
}

/** The offset just after the last newline of the file (0 when it has none), read backwards. */
export function lastRecordEnd(fd: number, size: number): number {
  const chunk = Buffer.alloc(64 * 1024);
  let pos = size;
  while (pos > 0) {
    const n = Math.min(chunk.length, pos);
    pos -= n;
    readSync(fd, chunk, 0, n, pos);
    const at = chunk.subarray(0, n).lastIndexOf(0x0a);
    if (at >= 0) return pos + at + 1;
  }
  return 0;
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

/**
 * The lines of a log (its bytes as they are read), in order, the whole lines of a chunk at a
 * time. Only a newline ends a line, as pages count them: an id is a line number. Bytes after the
 * last newline are not a line yet (being written, or its writer was cut short): pages do not
 * count them either, so how many there are is left in `tail` for the reader to tell.
 */
export async function* logLines(input: AsyncIterable<Buffer>, tail = { bytes: 0 }): AsyncGenerator<Buffer[]> {
  let parts: Buffer[] = [];
  for await (const chunk of input) {
    const lines: Buffer[] = [];
    let s = 0;
    for (let e = chunk.indexOf(0x0a); e >= 0; e = chunk.indexOf(0x0a, s)) {
      lines.push(parts.length ? Buffer.concat([...parts, chunk.subarray(s, e)]) : chunk.subarray(s, e));
      parts = [];
      s = e + 1;
    }
    if (s < chunk.length) parts.push(chunk.subarray(s));
    if (lines.length) yield lines;
  }
  tail.bytes = parts.reduce((n, p) => n + p.length, 0);
}
