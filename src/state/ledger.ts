import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { FileJournals, type Journals } from './journal.js';

/**
 * The never-twice ledger of pushes and template sends: per destination (src/state/destination.ts),
 * who was reached and when, across files, single sends and spellings (a person is their key,
 * src/person.ts). A person reached through the same destination within the window is skipped
 * unless `--call-again`. Opened under the destination's lock (State.openLedger), so the people
 * read at open stay true while the run holds it.
 */
export interface Ledger {
  /** When this person was last reached (or may have been: sent without an answer), if ever. */
  lastReached(person: string): string | undefined;
  /** Written (and flushed, or committed) right before the request: from here on the person may be reached. */
  pending(person: string, at: string): void | Promise<void>;
  /** The request was refused or never left: the person was not reached by it. */
  cleared(person: string, at: string): void | Promise<void>;
  close(): void | Promise<void>;
}

/** Where ledgers live: files (fileLedgers) or the PostgreSQL store (src/state/pg-ledger.ts). */
export interface Ledgers {
  /** The ledger of a destination, to write to (the caller holds the destination's lock). */
  open(destination: string): Promise<Ledger>;
  /** When each person was last reached through `destination`, read without writing (a dry run). */
  peek(destination: string): Promise<(person: string) => string | undefined>;
  /** Whether anything is recorded for `destination`. */
  has(destination: string): Promise<boolean>;
  /**
   * Takes what was recorded under `from` (a destination as an earlier version spelled it) into
   * `to`, each person re-keyed by `rekey` (its key now); `from` is then empty. Resolves with the
   * number of people taken.
   */
  adopt(from: string, to: string, rekey: (person: string) => string): Promise<number>;
  /** Every destination with its number of people and the last time one was reached. */
  list(): Promise<Array<{ destination: string; people: number; lastAt?: string }>>;
}

/** Default window within which a person reached through a destination is not reached again. */
export const RECALL_WINDOW_MS = 24 * 3600 * 1000;

type Entry = { p: string; s: 'pending' | 'clear'; at: string };

/** The name of a destination's ledger: a hash (names are file names). */
export const ledgerName = (destination: string) => createHash('sha256').update(destination).digest('hex').slice(0, 24);

/** Each person's last entry. */
async function readLedger(store: Journals, name: string): Promise<Map<string, Entry>> {
  const last = new Map<string, Entry>();
  for (const e of (await store.read(name)) ?? []) if (typeof e.p === 'string') last.set(e.p, e as Entry);
  return last;
}

const reachedAt = (last: ReadonlyMap<string, Entry>) => (person: string) => {
  const e = last.get(person);
  return e?.s === 'pending' ? e.at : undefined;
};

/** Ledgers as append-only journals in `<state>/ledgers/<hash of the destination>.jsonl`, one per destination. */
export function fileLedgers(stateDir: string): Ledgers {
  const store = new FileJournals(join(stateDir, 'ledgers'), '.jsonl');
  return {
    async open(destination) {
      const name = ledgerName(destination);
      const last = await readLedger(store, name);
      const journal = store.open(name, () => ({ destination }));
      const append = (e: Entry, durable: boolean) => {
        last.set(e.p, e);
        return journal.append(e, durable);
      };
      return {
        lastReached: reachedAt(last),
        pending: (p, at) => append({ p, s: 'pending', at }, true),
        cleared: (p, at) => append({ p, s: 'clear', at }, false),
        close: () => journal.close(),
      };
    },
    async peek(destination) {
      return reachedAt(await readLedger(store, ledgerName(destination)));
    },
    async has(destination) {
      return (await store.first(ledgerName(destination))) !== undefined;
    },
    async adopt(from, to, rekey) {
      const old = await readLedger(store, ledgerName(from));
      const journal = store.open(ledgerName(to), () => ({ destination: to }));
      try {
        for (const e of old.values()) journal.append({ ...e, p: rekey(e.p) }, false);
      } finally {
        await journal.close();
      }
      await store.remove(ledgerName(from));
      return old.size;
    },
    async list() {
      const found = [];
      for (const name of await store.list()) {
        const records = (await store.read(name)) ?? [];
        const destination = records[0]?.destination;
        if (typeof destination !== 'string') continue;
        const last = await readLedger(store, name);
        const times = [...last.values()]
          .filter((e) => e.s === 'pending')
          .map((e) => e.at)
          .sort();
        found.push({ destination, people: last.size, ...(times.length ? { lastAt: times.at(-1)! } : {}) });
      }
      return found;
    },
  };
}
