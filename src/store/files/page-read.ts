import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { EventSummary } from '../../schemas/detect.js';
import type { EventFilter, EventPage, HookRecord, PageCursor, StoredEvent } from '../events.js';
import { recordFacts } from '../facts.js';
import { decodeRecord, eachLineBackward, logBase } from './log-read.js';

/*
 * Pages of an NDJSON log, newest first, read backwards from the end of the file (or from where the
 * previous page stopped) in chunks of 1 MiB: what a page costs does not grow with the log, and
 * nothing but the page is held. Ids are line numbers, as `hooks events` gives them (a line that
 * does not read counted too).
 */

const CHUNK = 1 << 20;

/**
 * The number of whole lines of a file, counted once and then only in what was appended since
 * (a file that shrank or was replaced is counted again).
 */
export class LineCount {
  private size = 0;
  private lines = 0;
  private ino = -1;
  /** What the file's first line is numbered after (logBase), once it holds a record. */
  private base: number | undefined;

  /**
   * Whole lines (each ending with a newline), the offset just after the last one, what the first
   * is numbered after, and whether the file is another than last time (rotated, or cut).
   */
  now(fd: number): { lines: number; end: number; base: number | undefined; renewed: boolean } {
    const st = fstatSync(fd);
    const renewed = st.ino !== this.ino || st.size < this.size;
    if (renewed) [this.size, this.lines, this.ino, this.base] = [0, 0, st.ino, undefined];
    this.base ??= logBase(fd);
    const chunk = Buffer.allocUnsafe(CHUNK);
    let pos = this.size;
    let end = this.size;
    while (pos < st.size) {
      const n = readSync(fd, chunk, 0, Math.min(CHUNK, st.size - pos), pos);
      if (n <= 0) break;
      for (let at = chunk.indexOf(0x0a); at >= 0 && at < n; at = chunk.indexOf(0x0a, at + 1)) {
        this.lines += 1;
        end = pos + at + 1;
      }
      pos += n;
    }
    // Counted up to the last newline only: a line being written is counted once it is whole.
    this.size = end;
    return { lines: this.lines, end, base: this.base, renewed };
  }
}

/**
 * Cheap tests on a line's bytes that a record must pass to match (each sound: never drops a
 * match), so that most lines of a narrow filter are never decoded nor parsed.
 */
function prefilter(filter: EventFilter): (line: Buffer) => boolean {
  const needs: Array<(line: Buffer) => boolean> = [];
  const quoted = (v: string) => JSON.stringify(v);
  const anyOf = (texts: string[]) => {
    const needles = texts.map((t) => Buffer.from(t));
    return (l: Buffer) => needles.some((n) => l.includes(n));
  };
  if (filter.types)
    needs.push(anyOf([...filter.types].map((t) => (t === 'refused' ? '"type":null' : `"type":${quoted(t)}`))));
  if (filter.verdicts && !filter.verdicts.has('refused'))
    needs.push(anyOf([...filter.verdicts].map((v) => `"verdict":${quoted(v)}`)));
  if (filter.retries !== undefined) {
    const first = anyOf(['"retry":0,', '"retry":0}']);
    needs.push(filter.retries ? (l) => !first(l) : first);
  }
  if (filter.key !== undefined) needs.push(anyOf([`"key":${quoted(filter.key)}`]));
  // An id of the body, as the record's line writes it (the body is a JSON string in the record, so
  // escaped twice); a body that spells characters otherwise (\u, \/) may hold it in another
  // spelling, and a number in the body is read as its shortest text (1e3 is "1000"): such lines are
  // read whole.
  for (const v of [filter.plan, filter.task]) {
    if (v === undefined || String(Number(v)) === v) continue;
    needs.push(anyOf([quoted(quoted(v).slice(1, -1)).slice(1, -1), '\\\\u', '\\\\/']));
  }
  // The person is compared as people are (E.164, NFKC): a body may spell it otherwise, so only the
  // fields that name one are looked for (a workflow push's callee, a template's channel_id).
  if (filter.callee !== undefined) needs.push(anyOf(['callee', 'channel_id', '\\\\u']));
  // Times: every record line holds its ISO time early, compared as text.
  const since = filter.since === undefined ? undefined : new Date(filter.since).toISOString();
  const until = filter.until === undefined ? undefined : new Date(filter.until).toISOString();
  if (since !== undefined || until !== undefined) {
    const key = Buffer.from('"time":"');
    needs.push((l) => {
      const at = l.indexOf(key);
      if (at < 0) return true;
      const t = l.toString('latin1', at + 8, at + 32);
      return (since === undefined || t >= since) && (until === undefined || t < until);
    });
  }
  return (line) => needs.every((n) => n(line));
}

/**
 * Up to `cursor.limit` events matching `filter`, newest first: before id `cursor.before` or after
 * id `cursor.after` (exclusive). `hint` remembers where lines start, so the next page of a list
 * starts reading where the last one stopped instead of at the end.
 */
export function pageOfLog(
  path: string,
  count: LineCount,
  hint: Map<number, number>,
  filter: EventFilter,
  cursor: PageCursor,
  chunkSize = CHUNK,
): EventPage {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { events: [], newest: '0', more: false };
  }
  try {
    // Ids are line numbers on from the file's base (numbers go on across rotated files).
    const { lines, end, renewed, ...counted } = count.now(fd);
    const base = counted.base ?? 0;
    if (renewed) hint.clear();
    if (cursor.limit <= 0) return { events: [], newest: String(base + lines), more: false };
    const before = cursor.before === undefined ? lines + 1 : Math.min(Number(cursor.before) - base, lines + 1);
    const after = cursor.after === undefined ? 0 : Math.max(0, Number(cursor.after) - base);
    // Before this file's first line: in a file rotated away, not read here.
    if (before <= 1) return { events: [], newest: String(base + lines), more: false };
    const pass = prefilter(filter);
    const events: StoredEvent[] = [];
    let more = false;
    // Start at the end, or at the start of line `before` when the last page stopped there.
    let line = lines + 1;
    let pos = end;
    const known = hint.get(before);
    if (known !== undefined && known <= end) [line, pos] = [before, known];
    let lastStart = pos;
    eachLineBackward(fd, pos, chunkSize, (bytes, start) => {
      line -= 1;
      if (line <= after) return false;
      if (line >= before || !pass(bytes)) return;
      const record = decodeRecord(bytes.toString('utf8'));
      if (!record || !matches(record, filter, () => recordFacts(record))) return;
      if (events.length === cursor.limit) {
        more = true;
        hint.set(Number(events.at(-1)!.id) - base, lastStart);
        if (hint.size > 256) hint.delete(hint.keys().next().value!);
        return false;
      }
      events.push({ id: String(base + line), record });
      lastStart = start;
    });
    return { events, newest: String(base + lines), more };
  } finally {
    closeSync(fd);
  }
}

/** Whether a record passes a filter (the files store's query; a database's is SQL). */
export function matches(record: HookRecord, filter: EventFilter, facts: () => EventSummary): boolean {
  if (filter.types && !filter.types.has(record.type ?? 'refused')) return false;
  if (filter.since !== undefined || filter.until !== undefined) {
    const t = Date.parse(record.time);
    if (filter.since !== undefined && t < filter.since) return false;
    if (filter.until !== undefined && t >= filter.until) return false;
  }
  if (filter.verdicts && !filter.verdicts.has(record.verdict ?? (record.status === 200 ? '' : 'refused'))) return false;
  if (filter.key !== undefined && record.key !== filter.key) return false;
  if (filter.retries !== undefined && filter.retries !== record.retry > 0) return false;
  if (filter.plan !== undefined || filter.task !== undefined || filter.callee !== undefined) {
    const f = facts();
    if (filter.plan !== undefined && f.plan !== filter.plan) return false;
    if (filter.task !== undefined && f.task !== filter.task) return false;
    if (filter.callee !== undefined && f.callee !== filter.callee) return false;
  }
  return true;
}
