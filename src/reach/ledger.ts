import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { acquireLock } from '../files/lock.js';

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

/** Where ledgers live: files (fileLedgers) or the PostgreSQL store (src/store/pg-ledger.ts). */
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

const ledgerPath = (stateDir: string, destination: string) =>
  join(stateDir, 'ledgers', `${createHash('sha256').update(destination).digest('hex').slice(0, 24)}.jsonl`);

/** The ledger file's text ('' when there is none yet) and each person's last entry. */
function readLedger(path: string): { text: string; last: Map<string, Entry> } {
  const last = new Map<string, Entry>();
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const e = JSON.parse(line) as Entry & { destination?: string };
      if (typeof e.p === 'string') last.set(e.p, e);
    } catch {
      /* a line torn by a kill */
    }
  }
  return { text, last };
}

/**
 * When each person was last reached through `destination`, read without its lock and without
 * writing anything (`--dry-run`: what a run now would skip; a run in progress may add more).
 */
export function peekLedger(stateDir: string, destination: string): (person: string) => string | undefined {
  const { last } = readLedger(ledgerPath(stateDir, destination));
  return (person) => {
    const e = last.get(person);
    return e?.s === 'pending' ? e.at : undefined;
  };
}

/** Ledgers as NDJSON files in `<state>/ledgers/`, one per destination, append-only. */
export function fileLedgers(stateDir: string): LedgerStore {
  return {
    open(destination) {
      mkdirSync(join(stateDir, 'ledgers'), { recursive: true, mode: 0o700 });
      const path = ledgerPath(stateDir, destination);
      // Two runs to the same destination at once would each miss the other's people.
      const release = acquireLock(`${path}.lock`, `send to ${destination}`);
      try {
        const { text, last } = readLedger(path);
        const fd = openSync(path, 'a', 0o600);
        if (!text) writeSync(fd, `${JSON.stringify({ destination })}\n`);
        else if (!text.endsWith('\n')) writeSync(fd, '\n');
        const append = (e: Entry, sync: boolean) => {
          writeSync(fd, `${JSON.stringify(e)}\n`);
          if (sync) fsyncSync(fd);
          last.set(e.p, e);
        };
        return {
          lastReached: (person) => {
            const e = last.get(person);
            return e?.s === 'pending' ? e.at : undefined;
          },
          pending: (p, at) => append({ p, s: 'pending', at }, true),
          cleared: (p, at) => append({ p, s: 'clear', at }, false),
          close: () => {
            closeSync(fd);
            release();
          },
        };
      } catch (error) {
        release();
        throw error;
      }
    },
  };
}
