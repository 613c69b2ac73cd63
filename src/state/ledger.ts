import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { acquireLock } from '../files/lock.js';
import { FileJournals, type JournalStore } from './journal.js';

/**
 * The never-twice ledger of pushes and template sends: per destination (the normalised flex-route
 * or template endpoint), who was reached and when, across files, file names and spellings of the
 * URL. A row whose person was reached through the same destination within the window is skipped
 * unless `--call-again`.
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
export interface LedgerStore {
  open(destination: string): Ledger | Promise<Ledger>;
}

/** Default window within which a person reached through a destination is not reached again. */
export const RECALL_WINDOW_MS = 24 * 3600 * 1000;

/**
 * One spelling for one address: scheme and host in lower case, `localhost` and `[::1]` as
 * 127.0.0.1, no default port, no trailing slash, no empty path segments.
 */
export function normaliseUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.trim().replace(/\/+$/, '');
  }
  const host = u.hostname === 'localhost' || u.hostname === '[::1]' ? '127.0.0.1' : u.hostname;
  const path = u.pathname.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  return `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}${path}${u.search}`;
}

/** A destination's text with every URL in it normalised (`POST https://Flex.example/api/push/***`). */
export function normaliseDestination(text: string): string {
  return text.replace(/https?:\/\/[^\s]+/gi, (url) => normaliseUrl(url));
}

type Entry = { p: string; s: 'pending' | 'clear'; at: string };

/** The ledgers as journals (src/state/journal.ts): `<state>/ledgers/<hash of the destination>.jsonl`. */
const ledgerJournals = (stateDir: string) => new FileJournals(join(stateDir, 'ledgers'), '.jsonl');
const ledgerName = (destination: string) => createHash('sha256').update(destination).digest('hex').slice(0, 24);

/** Each person's last entry. */
async function readLedger(store: JournalStore, name: string): Promise<Map<string, Entry>> {
  const last = new Map<string, Entry>();
  for (const e of (await store.read(name)) ?? []) if (typeof e.p === 'string') last.set(e.p, e as Entry);
  return last;
}

const reachedAt = (last: ReadonlyMap<string, Entry>) => (person: string) => {
  const e = last.get(person);
  return e?.s === 'pending' ? e.at : undefined;
};

/**
 * When each person was last reached through `destination`, read without its lock and without
 * writing anything (`--dry-run`: what a run now would skip; a run in progress may add more).
 */
export async function peekLedger(
  stateDir: string,
  destination: string,
): Promise<(person: string) => string | undefined> {
  return reachedAt(await readLedger(ledgerJournals(stateDir), ledgerName(destination)));
}

/** Ledgers as append-only journals in `<state>/ledgers/`, one per destination. */
export function fileLedgers(stateDir: string): LedgerStore {
  return {
    async open(destination) {
      const store = ledgerJournals(stateDir);
      const name = ledgerName(destination);
      mkdirSync(store.dir, { recursive: true, mode: 0o700 });
      // Two runs to the same destination at once would each miss the other's people.
      const release = acquireLock(`${store.where(name)}.lock`, `send to ${destination}`);
      try {
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
          close: async () => {
            try {
              await journal.close();
            } finally {
              release();
            }
          },
        };
      } catch (error) {
        release();
        throw error;
      }
    },
  };
}
