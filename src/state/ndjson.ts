import { statSync } from 'node:fs';
import { DedupStore } from './dedup.js';
import { EventLog, readLog, type HookRecord } from './event-log.js';
import { matches, recordFacts } from './facts.js';
import {
  StoreUnavailable,
  type Appended,
  type EventFilter,
  type EventStore,
  type ForwardClaim,
  type ForwardResult,
  type StoredEvent,
} from './types.js';

/**
 * The embedded store: serve-hooks' `--log` NDJSON file (or nothing, without a file) and dedup in
 * this process's memory, as callctl has always done. One process, so a forward is always claimed
 * by whoever appends, and nothing is ever abandoned by another instance.
 * Ids are record numbers in the file (1 for its first record), counted as it is read.
 */
export class NdjsonStore implements EventStore {
  readonly kind = 'ndjson';
  readonly where: string;
  private seq = 0;
  private lastTime = '';
  private lastMs = 0;
  /** Keys whose forward finally failed: their next retry from the service is sent on again. */
  private readonly forwardFailed = new Set<string>();
  /**
   * Keys whose record is being written, with the arrivals of the same key that wait for it (made
   * only when one comes: most keys arrive once).
   */
  private readonly writing = new Map<string, Array<() => void> | null>();
  /** The seen key of each event whose forward is under way. */
  private readonly forwarding = new Map<string, string>();

  constructor(
    private readonly path: string | undefined,
    private readonly log: EventLog | undefined,
    private readonly dedup: DedupStore = new DedupStore(),
  ) {
    this.where = path ?? '(memory)';
  }

  /** Opens the file for appending (serve-hooks) when `write`, else only for reading. */
  static open(
    path: string | undefined,
    options: { write?: boolean; fsync?: boolean; dedup?: DedupStore } = {},
  ): NdjsonStore {
    const log = path && options.write ? EventLog.open(path, { fsync: options.fsync }) : undefined;
    return new NdjsonStore(path, log, options.dedup);
  }

  /** Remembers events recorded earlier as seen (a restart reading its recent history). */
  remember(key: string, time: number): void {
    this.dedup.hit(key, time);
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
    let offset: number | undefined;
    if (guarded) this.writing.set(seenKey, null);
    try {
      if (this.log) offset = await this.log.append(record);
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
    const id = String(++this.seq);
    const claimed = !!forward && retry === 0 && seenKey !== undefined;
    if (claimed) this.forwarding.set(id, seenKey);
    return {
      id,
      retry,
      firstId: id,
      claimed,
      ...(seenKey !== undefined ? { seenKey } : {}),
      ...(offset !== undefined ? { offset } : {}),
    };
  }

  /** The record that starts at `offset` in the file (an append's `offset`), if it is still there. */
  readAt(offset: number): HookRecord | undefined {
    return this.log?.readAt(offset);
  }

  async reclaimFailed(appended: Appended, claim: ForwardClaim): Promise<boolean> {
    const key = appended.seenKey;
    if (key === undefined || !this.forwardFailed.delete(key)) return false;
    void claim;
    this.forwarding.set(appended.id, key);
    return true;
  }

  /** One process: a claim is never taken over. */
  async renewClaim(): Promise<boolean> {
    return true;
  }

  async finishForward(id: string, _owner: string, result: ForwardResult): Promise<void> {
    const key = this.forwarding.get(id);
    this.forwarding.delete(id);
    if (key !== undefined && !result.ok) this.forwardFailed.add(key);
  }

  async takeAbandoned(): Promise<StoredEvent[]> {
    return [];
  }

  async *read(filter: EventFilter, after?: string): AsyncGenerator<StoredEvent> {
    if (!this.path) return;
    const from = after === undefined ? 0 : Number(after);
    const last: StoredEvent[] | undefined = filter.limit !== undefined && after === undefined ? [] : undefined;
    let n = 0;
    let given = 0;
    try {
      statSync(this.path);
    } catch {
      return;
    }
    for await (const record of readLog(this.path)) {
      n += 1;
      if (n <= from) continue;
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
    if (last) yield* last;
  }

  async get(id: string): Promise<StoredEvent | undefined> {
    if (!/^[1-9]\d*$/.test(id)) return undefined;
    for await (const e of this.read({}, String(Number(id) - 1))) return e.id === id ? e : undefined;
    return undefined;
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
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(false);
      const timer = setInterval(() => {
        if (size() !== start) done(true);
      }, 200);
      const done = (more: boolean) => {
        clearInterval(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(more);
      };
      const onAbort = () => done(false);
      signal.addEventListener('abort', onAbort);
    });
  }

  async ready(): Promise<string | undefined> {
    return this.log?.probe();
  }

  async close(): Promise<void> {
    await this.log?.close();
  }
}
