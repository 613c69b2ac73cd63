import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { JournalRecord, Journals, Ledgers } from '../store.js';
import { FileJournals } from './journal.js';

type Entry = { p: string; s: 'pending' | 'clear'; at: string };

/** The name of a destination's ledger: a hash (names are file names). */
export const ledgerName = (destination: string) => createHash('sha256').update(destination).digest('hex').slice(0, 24);

/** Each person's last entry. */
async function readLedger(store: Journals, name: string): Promise<Map<string, Entry>> {
  return lastEntries((await store.read(name)) ?? []);
}

function lastEntries(records: readonly JournalRecord[]): Map<string, Entry> {
  const last = new Map<string, Entry>();
  for (const e of records) if (typeof e.p === 'string') last.set(e.p, e as Entry);
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
    async list() {
      const found = [];
      for (const name of await store.list()) {
        const records = (await store.read(name)) ?? [];
        const destination = records[0]?.destination;
        if (typeof destination !== 'string') continue;
        const last = lastEntries(records);
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
