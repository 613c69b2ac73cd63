import { closeSync, createReadStream, openSync, statSync } from 'node:fs';
import { fsReason, LocalError } from '../../errors.js';
import { plural } from '../../plural.js';
import { seenKey, signPair } from '../dedup.js';
import {
  oneLine,
  pollUntil,
  StoreUnavailable,
  type Appended,
  type EventFilter,
  type EventPage,
  type EventStore,
  type ForwardClaim,
  type Forwarded,
  type ForwardResult,
  type HookRecord,
  type PageCursor,
  type PairMemory,
  type StoredEvent,
} from '../events.js';
import { recordFacts } from '../facts.js';
import { EventLog, type Written } from './event-log.js';
import { decodeRecord, logBase, logLines, readRecentRecords } from './log-read.js';
import { DedupStore, SignPairs } from './memory.js';
import { LineCount, matches, pageOfLog } from './page-read.js';
import { rotatedHistory } from './rotated.js';
import { said } from '../../said.js';

const DAY_MS = 24 * 3_600_000;

interface Forwarding {
  key: string;
  time: string;
  attempts: number;
  offset: number | undefined;
}

interface Failed extends Forwarded, Omit<Forwarding, 'key'> {
  /** When it failed (Date.now()). */
  at: number;
}

export interface NdjsonOptions {
  /** Open the file for appending (serve-hooks); else only read it. */
  write?: boolean;
  fsync?: boolean;
  dedup?: DedupStore;
  /** Writing: the records of the file received this long before now (ms) count as seen. */
  rememberMs?: number;
  now?: () => number;
}

/**
 * The files store's events: serve-hooks' NDJSON file (or nothing, without a file) and dedup in
 * this process's memory, as callctl has always done. One process, so a forward is always claimed
 * by whoever appends, and nothing is ever abandoned by another instance.
 * Ids are line numbers in the file (a line that does not read counted too), on from the number
 * its first record carries (`n`: a log started by a rotation goes on from the one before; 1 for
 * the first line of a log of an earlier version), so the live view, `hooks events` and `hooks
 * show` give an event the same number, across restarts and rotations; without a file, numbers of
 * this run.
 */
export class NdjsonEvents implements EventStore {
  readonly where: string;
  readonly shared = false;
  readonly writesTo: 'log' | 'memory';
  summary: string;
  readonly notices: string[] = [];
  private seq = 0;
  /** Lines of the file that did not read as records, in the reads so far (corrupt, or cut short). */
  skipped = 0;
  private lastTime = '';
  private lastMs = 0;
  /**
   * Keys whose forward finally failed (with their event, where its record starts in the file and
   * when it failed): their next retry from the service is sent on again, and so is each once a wait
   * has passed (takeAbandoned).
   */
  private readonly forwardFailed = new Map<string, Failed>();
  /**
   * Keys whose record is being written, with the arrivals of the same key that wait for it (made
   * only when one comes: most keys arrive once).
   */
  private readonly writing = new Map<string, Array<() => void> | null>();
  /** Each event whose forward is under way: its seen key, receive time, attempts so far and place in the file. */
  private readonly forwarding = new Map<string, Forwarding>();

  /** Plan-end pairs, in this process's memory (made by the first planPairs, or by remembering). */
  private pairs: SignPairs | undefined;

  constructor(
    private readonly path: string | undefined,
    private readonly log: EventLog | undefined,
    private readonly dedup: DedupStore = new DedupStore(),
  ) {
    this.where = path ?? '(memory)';
    this.writesTo = log ? 'log' : 'memory';
    this.summary = log ? `log ${log.path}${log.fsync ? ' (fsync)' : ''}` : 'no log';
  }

  /**
   * Opens the file for appending (serve-hooks) when `write`, else only for reading. A log that
   * cannot be opened is local trouble (exit 6) naming `from`, where the path came from.
   */
  static open(path: string | undefined, options: NdjsonOptions = {}, from = '--log'): NdjsonEvents {
    let log: EventLog | undefined;
    if (path && options.write) {
      try {
        log = EventLog.open(path, { fsync: options.fsync });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const why = code === 'ENOTREG' ? 'not a regular file' : fsReason(code);
        throw new LocalError(said`${from}: cannot open ${path}: ${why}`, { path, ...(code ? { code } : {}) });
      }
    }
    const store = new NdjsonEvents(path, log, options.dedup);
    if (log?.repaired)
      store.notices.push(
        `${from}: cut ${plural(log.repaired, 'byte')} of a record cut short at the end of ${path} (a crash mid-write; it was never acknowledged)`,
      );
    if (log && options.rememberMs !== undefined) {
      const now = (options.now ?? Date.now)();
      const n = store.remember(readRecentRecords(log.path, now - options.rememberMs), options.rememberMs);
      if (n) store.summary += `, ${n} recent records remembered`;
    }
    return store;
  }

  /**
   * serve-hooks' start: the records of the last `windowMs` count as seen, those of the files
   * logrotate made of the log first (a retry of an event rotated away is still a retry), then
   * the log's; and while the log holds no record, its numbers go on from the rotated files'.
   */
  async recall(windowMs: number, now: number): Promise<void> {
    if (!this.log) return;
    const since = now - windowMs;
    const rotated = await rotatedHistory(this.log.path, since, this.log.unnumbered);
    if (rotated.highest !== undefined) this.log.continueFrom(rotated.highest);
    for (const file of rotated.unreadable) this.notices.push(`cannot read the rotated log ${file}: not remembered`);
    const n = this.remember([...rotated.records, ...readRecentRecords(this.log.path, since)], windowMs);
    const from = rotated.records.length ? ` (${rotated.records.length} from rotated files)` : '';
    if (n) this.summary += `, ${n} recent records remembered${from}`;
  }

  /**
   * Remembers records of an earlier run as seen (their identities, and the pairs of verified plan
   * ends, for `windowMs`); how many records that was.
   */
  private remember(records: readonly HookRecord[], windowMs: number): number {
    const pairs = (this.pairs ??= new SignPairs(windowMs));
    for (const r of records) {
      if (!r.key) continue;
      const at = Date.parse(r.time);
      this.dedup.hit(seenKey(r.key, r.status, r.verdict), at);
      if (
        r.type !== 'plan.end' ||
        r.verdict !== 'verified' ||
        r.status !== 200 ||
        r.body === undefined ||
        r.encoding !== undefined
      )
        continue;
      let pair: string | undefined;
      try {
        pair = signPair(JSON.parse(r.body));
      } catch {
        pair = undefined;
      }
      if (pair) pairs.claim(pair, r.key, at);
    }
    return records.length;
  }

  planPairs(windowMs: number): PairMemory {
    return (this.pairs ??= new SignPairs(windowMs));
  }

  readFailure(error: unknown): Error {
    return new LocalError(said`cannot read the event log ${this.where}: ${oneLine(error)}`);
  }

  /**
   * Counts the arrival and writes its record, one arrival of a key at a time: a copy that comes
   * while the first is being written waits for it, so it is told apart as a retry only when the
   * first was durably recorded. An arrival is remembered as seen only once written; a failed write
   * leaves nothing behind, so the service's retry is taken as new.
   */
  async append(record: HookRecord, seenKey: string | undefined, forward?: ForwardClaim): Promise<Appended> {
    // The records of one millisecond share their time text (many of them under load).
    if (record.time !== this.lastTime) {
      this.lastTime = record.time;
      this.lastMs = Date.parse(record.time);
    }
    const time = this.lastMs;
    let retry = 0;
    if (seenKey !== undefined) {
      while (this.writing.has(seenKey)) {
        let waiters = this.writing.get(seenKey);
        if (!waiters) this.writing.set(seenKey, (waiters = []));
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
      retry = this.dedup.peek(seenKey, time);
    }
    record.retry = retry;
    record.duplicate = retry > 0;
    const guarded = seenKey !== undefined && this.log !== undefined;
    let written: Written | undefined;
    if (guarded) this.writing.set(seenKey, null);
    try {
      if (this.log) written = await this.log.append(record);
      if (seenKey !== undefined) this.dedup.hit(seenKey, time);
    } catch (error) {
      throw new StoreUnavailable(`cannot write the event log: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    } finally {
      if (guarded) {
        const waiters = this.writing.get(seenKey);
        this.writing.delete(seenKey);
        if (waiters) for (const wake of waiters) wake();
      }
    }
    const offset = written?.offset;
    // The log numbers its lines as it writes them (on from the files rotated before it); without
    // one, numbers of this run.
    const id = String(written ? written.n : ++this.seq);
    const claimed = !!forward && retry === 0 && seenKey !== undefined;
    if (claimed) this.forwarding.set(id, { key: seenKey, time: record.time, attempts: 0, offset });
    return {
      id,
      retry,
      firstId: id,
      claimed,
      ...(seenKey !== undefined ? { seenKey } : {}),
      ...(offset !== undefined ? { offset } : {}),
    };
  }

  readAt(offset: number): HookRecord | undefined {
    return this.log?.readAt(offset);
  }

  async reclaimFailed(appended: Appended, claim: ForwardClaim): Promise<Forwarded | undefined> {
    const key = appended.seenKey;
    const failed = key === undefined ? undefined : this.forwardFailed.get(key);
    if (key === undefined || !failed) return undefined;
    void claim;
    this.forwardFailed.delete(key);
    this.forwarding.set(failed.id, { key, time: failed.time, attempts: failed.attempts, offset: failed.offset });
    return { id: failed.id, time: failed.time };
  }

  /** One process: a claim is never taken over; the attempt is counted. */
  async renewClaim(id: string, _claim?: ForwardClaim, count = true): Promise<number> {
    const f = this.forwarding.get(id);
    if (!f) return 1;
    return count ? ++f.attempts : f.attempts;
  }

  async finishForward(id: string, _owner: string, result: ForwardResult): Promise<void> {
    const f = this.forwarding.get(id);
    this.forwarding.delete(id);
    if (f !== undefined && !result.ok) {
      const attempts = Math.max(f.attempts, result.attempts);
      this.forwardFailed.set(f.key, { id, time: f.time, attempts, offset: f.offset, at: Date.now() });
    }
  }

  /**
   * One process: no claim is abandoned. A forward that failed is tried again as with a shared
   * store (postgres/claims.ts): once a wait that grows with its attempts has passed (an eighth of the
   * lease per attempt, at most 20), for a day after the event was received, read back from the
   * file (not without one: nothing to read back).
   */
  async takeAbandoned(claim: ForwardClaim, limit: number): Promise<StoredEvent[]> {
    const taken: StoredEvent[] = [];
    const now = Date.now();
    for (const [key, f] of this.forwardFailed) {
      if (taken.length >= limit) break;
      if (now - Date.parse(f.time) > DAY_MS) {
        this.forwardFailed.delete(key); // `hooks replay` after that
        continue;
      }
      if (f.offset === undefined || now - f.at < Math.min(f.attempts, 20) * (claim.leaseMs / 8)) continue;
      const record = this.readAt(f.offset);
      this.forwardFailed.delete(key);
      if (!record) continue;
      const attempts = f.attempts + 1;
      this.forwarding.set(f.id, { key, time: f.time, attempts, offset: f.offset });
      taken.push({ id: f.id, record, forward: { state: 'claimed', attempts } });
    }
    return taken;
  }

  async *read(filter: EventFilter, after?: string): AsyncGenerator<StoredEvent> {
    if (!this.path) return;
    const from = after === undefined ? 0 : Number(after);
    const last: StoredEvent[] | undefined = filter.limit !== undefined && after === undefined ? [] : undefined;
    let given = 0;
    // Line numbers on from what the file's first line is numbered after (rotation: logBase).
    let fd: number;
    try {
      fd = openSync(this.path, 'r');
    } catch {
      return;
    }
    let n: number;
    try {
      n = logBase(fd) ?? 0;
    } finally {
      closeSync(fd);
    }
    const tail = { bytes: 0 };
    for await (const lines of logLines(createReadStream(this.path), tail))
      for (const line of lines) {
        n += 1;
        if (n <= from) continue;
        const record = decodeRecord(line.toString('utf8'));
        if (record === undefined) {
          this.skipped += 1;
          continue;
        }
        let facts: ReturnType<typeof recordFacts> | undefined;
        if (!matches(record, filter, () => (facts ??= recordFacts(record)))) continue;
        const event: StoredEvent = { id: String(n), record };
        if (last) {
          last.push(event);
          if (last.length > filter.limit!) last.shift();
          continue;
        }
        yield event;
        if (filter.limit !== undefined && ++given >= filter.limit) return;
      }
    // A line not yet whole: told by the first read (a --follow re-read shows it once it is whole).
    if (tail.bytes && after === undefined) this.skipped += 1;
    if (last) yield* last;
  }

  /** Lines counted so far, and where recent pages stopped: a page reads only what it shows. */
  private readonly counted = new LineCount();
  private readonly pageStarts = new Map<number, number>();

  async page(filter: EventFilter, cursor: PageCursor): Promise<EventPage> {
    if (!this.path) return { events: [], newest: '0', more: false };
    return pageOfLog(this.path, this.counted, this.pageStarts, filter, cursor);
  }

  async get(id: string): Promise<StoredEvent | undefined> {
    if (!/^[1-9]\d{0,15}$/.test(id) || !this.path) return undefined;
    // Read backwards from the end (or from where a page stopped): lines after it are only counted.
    const page = pageOfLog(this.path, this.counted, this.pageStarts, {}, { before: String(Number(id) + 1), limit: 1 });
    return page.events[0]?.id === id ? page.events[0] : undefined;
  }

  /** Polls the file's size (fs.watch misses appends on some file systems). */
  waitForMore(signal: AbortSignal): Promise<boolean> {
    const size = () => {
      try {
        return statSync(this.path!).size;
      } catch {
        return -1;
      }
    };
    const start = size();
    return pollUntil(signal, 200, () => size() !== start);
  }

  reopen(): { ok: boolean; message: string } | undefined {
    return this.log?.reopen();
  }

  async ready(): Promise<string | undefined> {
    return this.log?.probe();
  }

  async close(): Promise<void> {
    await this.log?.close();
  }
}
