import { createReadStream, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { HookRecord } from '../events.js';
import { decodeNumbered, logLines } from './log-read.js';

/*
 * The files logrotate made of an NDJSON log, read as serve-hooks starts: the records of the dedup
 * window (a retry of an event rotated away is still a retry), and the highest number given (the
 * log's numbers go on from it).
 */

/**
 * The files rotated from a log: regular files next to it named as it is and then `.` or `-` and
 * more (events.ndjson.1, events.ndjson.2.gz, events.ndjson-20261128), newest first.
 */
function rotatedFiles(path: string): Array<{ path: string; mtimeMs: number }> {
  const dir = dirname(path);
  const name = basename(path);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.length > name.length && n.startsWith(name) && '.-'.includes(n[name.length]!))
    .flatMap((n) => {
      const st = statSync(join(dir, n), { throwIfNoEntry: false });
      return st?.isFile() ? [{ path: join(dir, n), mtimeMs: st.mtimeMs }] : [];
    })
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** What serve-hooks needs of the rotated files at start. */
export interface RotatedHistory {
  /** Records received at or after `since`, oldest first. */
  records: HookRecord[];
  /** The highest number in the newest rotated file (when asked for), if it has numbered records. */
  highest?: number;
  /** Files that could not be read, with why. */
  unreadable: string[];
}

/**
 * Reads the files rotated from `path`: those written to at or after `since` for their recent
 * records, and the newest for its highest number when `numbers`. A compressed file (`.gz`) is
 * read through gunzip, a chunk at a time.
 */
export async function rotatedHistory(path: string, since: number, numbers: boolean): Promise<RotatedHistory> {
  const history: RotatedHistory = { records: [], unreadable: [] };
  const parts: HookRecord[][] = [];
  for (const [i, file] of rotatedFiles(path).entries()) {
    const recent = file.mtimeMs >= since;
    if (!recent && !(numbers && i === 0)) break;
    try {
      const got = await fileRecords(file.path, recent ? since : Infinity);
      parts.push(got.records);
      if (numbers && i === 0) history.highest = got.highest;
    } catch (error) {
      history.unreadable.push(`${file.path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  history.records = parts.reverse().flat();
  return history;
}

/** The records of one file received at or after `since`, and its highest number (its base and its lines). */
async function fileRecords(path: string, since: number): Promise<{ records: HookRecord[]; highest?: number }> {
  const sinceText = Number.isFinite(since) ? new Date(since).toISOString() : '~';
  const records: HookRecord[] = [];
  let base: number | undefined;
  let lines = 0;
  const input: Readable = createReadStream(path);
  const stream = path.endsWith('.gz') ? input.pipe(createGunzip()) : input;
  input.on('error', (error) => stream.destroy(error));
  for await (const chunk of logLines(stream as AsyncIterable<Buffer>))
    for (const line of chunk) {
      lines += 1;
      // The receive time is early in every line: older lines are decoded only to find the base.
      const at = line.indexOf('"time":"');
      const old = at >= 0 && line.toString('latin1', at + 8, at + 32) < sinceText;
      if (old && base !== undefined) continue;
      const decoded = decodeNumbered(line.toString('utf8'));
      if (!decoded) continue;
      base ??= decoded.n === undefined ? 0 : decoded.n - lines;
      if (!old) records.push(decoded.record);
    }
  return { records, ...(base !== undefined ? { highest: base + lines } : {}) };
}
