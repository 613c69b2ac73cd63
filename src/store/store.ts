import type { LockOwner } from '../files/lock.js';
import type { EventStore } from './events.js';

/*
 * The store: where a run keeps what it must not forget (journals, never-twice ledgers, locks, and
 * the events serve-hooks receives). One interface, two back ends, each complete in its own folder:
 * files/ (the default, no server: the state folder's files and an NDJSON event log) and
 * postgres/ (everything in one database every host shares). src/store/resolve.ts chooses and opens
 * the one a run uses; nothing outside src/store names a back end.
 */

/** Which journals: uploads (batches of a list update) or reach (rows of push and template send). */
export type JournalKind = 'upload' | 'reach';

/** One record of a journal: a JSON object (what it says is the using command's own). */
export type JournalRecord = Record<string, unknown>;

/**
 * An append-only journal of work that reaches people (list-update batches, pushes, template
 * sends): an intent is recorded, durably, before its request leaves, and its answer after.
 * A record appended with `durable` is durable (on disk, or committed), with every record before
 * it, when `append` returns (or its promise resolves); records appended without it are durable by
 * the next durable one or by `close`. So an answer need not be flushed on its own: the next intent
 * flushes it, and a crash before that leaves the request uncertain, never forgotten. A record
 * never holds a known secret (the service may echo one): each back end redacts before it keeps.
 */
export interface JournalAppender {
  append(record: JournalRecord, durable: boolean): void | Promise<void>;
  /** Makes durable what is not yet and closes. Safe to call more than once. */
  close(): void | Promise<void>;
}

/** How long a finished journal is kept (Journals.prune). */
export const JOURNAL_KEEP_MS = 30 * 24 * 3600 * 1000;

/**
 * Where journals live, by name (a hash of the work, never a path: the same work has the same
 * journal on every host that shares the store). Reads are asynchronous so that a database can.
 */
export interface Journals {
  /** Its records in order, or undefined when there is no such journal. A torn last record (a run killed mid-write) is left out. */
  read(name: string): Promise<JournalRecord[] | undefined>;
  /** The first record alone (the header), without reading the rest. */
  first(name: string): Promise<JournalRecord | undefined>;
  /**
   * Opens a journal to append to (the caller holds the work's lock). A new journal is created at
   * its first append, `header()` first, so that a run that records nothing leaves nothing behind.
   */
  open(name: string, header: () => JournalRecord): JournalAppender;
  list(prefix?: string): Promise<string[]>;
  remove(name: string): Promise<void>;
  /** Removes the journals last written over `keepMs` ago whose records say they are finished. */
  prune(finished: (records: JournalRecord[]) => boolean, keepMs?: number): Promise<string[]>;
  /** Where a journal is, for messages and summaries (a file's path, or its name in the store). */
  where(name: string): string;
}

/**
 * The never-twice ledger of pushes and template sends: per destination (src/store/destination.ts),
 * who was reached and when, across files, single sends and spellings (a person is their key,
 * src/person.ts). A person reached through the same destination within the window is skipped
 * unless `--call-again`. Opened under the destination's lock (openLedger, src/store/ledger.ts),
 * so the people read at open stay true while the run holds it.
 */
export interface Ledger {
  /** When this person was last reached (or may have been: sent without an answer), if ever. */
  lastReached(person: string): string | undefined;
  /** Durable (flushed, or committed) right before the request: from here on the person may be reached. */
  pending(person: string, at: string): void | Promise<void>;
  /** The request was refused or never left: the person was not reached by it. */
  cleared(person: string, at: string): void | Promise<void>;
  close(): void | Promise<void>;
}

export interface Ledgers {
  /** The ledger of a destination, to write to (the caller holds the destination's lock). */
  open(destination: string): Promise<Ledger>;
  /** When each person was last reached through `destination`, read without writing (a dry run). */
  peek(destination: string): Promise<(person: string) => string | undefined>;
  /** Every destination with its number of people and the last time one was reached. */
  list(): Promise<Array<{ destination: string; people: number; lastAt?: string }>>;
}

/** A lock to take: its name (the same on every host), what it guards (for the busy message), and its file. */
export interface LockRequest {
  name: string;
  what: string;
  /** The lock file, relative to the state folder (`uploads/<key>.lock`); by default `locks/<hash of the name>.lock`. */
  file?: string;
  /** A lock file left by a run that is gone was taken over (`path`: the file). */
  onStale?: (owner: LockOwner, path: string) => void;
}

export interface EventsOptions {
  /** serve-hooks: to append (a log is opened for writing; a database's tables are brought up to date). Else to read. */
  write?: boolean;
  /** serve-hooks' `--log FILE`: the NDJSON file to keep events in, for a store that names none. */
  log?: string;
  /** `--fsync`: each write of the log is flushed to disk before it is answered. */
  fsync?: boolean;
  /** Writing: events the log recorded this long before now (ms) count as seen (a restart reads its recent history). */
  rememberMs?: number;
  now?: () => number;
}

/** What a database's schema is at, for `store status`. */
export interface SchemaStatus {
  /** 0 when callctl's tables are not there. */
  version: number;
  /** The version this callctl writes. */
  latest: number;
  history: Array<{ version: number; description: string; at: string }>;
  server: string;
  /** The events kept, when the tables are there. */
  events?: { count: number; first?: string; last?: string };
}

/** The tables of a store kept in a database (`callctl store migrate`, `store status`). */
export interface StoreSchema {
  /** Brings the tables up to this callctl's schema; `from` the version found, `applied` the steps run now. */
  migrate(): Promise<{ from: number; applied: number[]; latest: number }>;
  status(): Promise<SchemaStatus>;
  /** The GRANTs, run by the tables' owner, that let `role` run callctl on them without owning them. */
  grants(role: string): string[];
}

/**
 * A run's store, opened once by the resolver (src/store/resolve.ts) and handed to the engines,
 * which never look up a setting themselves. The rules every back end keeps:
 * - a journal's intent and a ledger's `pending` are durable before the request they announce
 *   leaves, so a run killed at any point leaves its request uncertain, never forgotten;
 * - journals, ledgers and locks are keyed by destination and by what the work is about, so the
 *   same names find the same work on every host that shares the store;
 * - a lock is held by one run at a time: a second run is refused (UsageError, exit 2) naming the
 *   holder, and a run that dies leaves nothing that blocks the next one for long;
 * - an error says what failed, in which store (a URL never with its password), with the typed
 *   errors of src/errors.ts.
 */
export interface Store {
  /** Where the run's journals and ledgers are, for messages: `the state folder DIR`, `the store of CALLCTL_STORE`. */
  readonly where: string;
  /** True when journals, ledgers and locks are shared by every host that names the store. */
  readonly shared: boolean;
  /** The journals of uploads, or of push and template send. */
  journals(kind: JournalKind): Promise<Journals>;
  /** The never-twice ledgers (open one under its destination's lock: openLedger). */
  ledgers(): Promise<Ledgers>;
  /**
   * Takes a lock for the run: a busy one is a UsageError naming its holder. Resolves to its
   * release, which is safe to call more than once.
   */
  lock(request: LockRequest): Promise<() => Promise<void>>;
  /**
   * The events serve-hooks receives and `hooks events` reads. A store that names no place for
   * them keeps them in `options.log`, or in memory while writing; one that does refuses `--log`.
   */
  events(options: EventsOptions): Promise<EventStore>;
  /** A database's tables; absent for the files store, which needs none. */
  readonly schema?: StoreSchema;
  /** Ends what the store holds open (a database's connections). Safe to call more than once. */
  close(): Promise<void>;
}
