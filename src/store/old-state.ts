import { OldStateError } from '../errors.js';
import type { Destination } from './destination.js';
import type { JournalRecord, Journals } from './store.js';
import type { Ledgers } from './store.js';
import { said } from '../said.js';

/**
 * What to do with state an earlier version of callctl wrote without its destination
 * (`--claim-old-state`, `--ignore-old-state`; neither: stop). Such a record is never silently
 * taken as done (that skipped real work when the same file went to another service) nor silently
 * ignored (that would send again what it records as sent).
 */
export type OldStatePolicy = 'stop' | 'claim' | 'ignore';

const HOW =
  "if it was written for this destination, run again with --claim-old-state to take it as this destination's; to start afresh here (the old record stays for whichever destination it was), --ignore-old-state";

/**
 * Settles an old journal before a run opens `newName`: nothing to do when this destination has a
 * journal already or there is no old one; else stops, or takes the old records into `newName`
 * (its header replaced by `header`, the old one removed), or leaves it, as `policy` says.
 */
export async function settleOldJournal(
  store: Journals,
  o: {
    oldName: string;
    newName: string;
    policy: OldStatePolicy;
    destination: Destination;
    /** "upload journal of c.csv to workflow wf-1" */
    what: string;
    header: () => JournalRecord;
  },
): Promise<'none' | 'claimed' | 'ignored'> {
  if ((await store.first(o.newName)) !== undefined) return 'none';
  const old = await store.read(o.oldName);
  if (old === undefined || old.length === 0 || typeof old[0]?.destination === 'string') return 'none';
  if (o.policy === 'ignore') return 'ignored';
  if (o.policy === 'stop') {
    throw new OldStateError(
      said`the ${o.what} has a journal written by an earlier callctl without the destination it was for (${store.where(o.oldName)}, ${old.length} records, last ${String(old.at(-1)?.at ?? '?')}): it is not taken as done nor sent again for ${o.destination.text} unless you say so: ${HOW}`,
      { journal: store.where(o.oldName), destination: o.destination.text },
    );
  }
  const appender = store.open(o.newName, o.header);
  try {
    for (const record of old.slice(1)) await appender.append(record, false);
    await appender.append(
      { type: 'claimed', t: 'claimed', from: store.where(o.oldName), at: new Date().toISOString() },
      true,
    );
  } finally {
    await appender.close();
  }
  await store.remove(o.oldName);
  return 'claimed';
}

/**
 * The same for a never-twice ledger an earlier version kept under another spelling of the
 * destination, its people keyed as written: claimed, they are re-keyed as people now are.
 */
export async function settleOldLedger(
  ledgers: Ledgers,
  o: { oldDestination: string; destination: Destination; policy: OldStatePolicy; rekey: (person: string) => string },
): Promise<'none' | 'claimed' | 'ignored'> {
  if (await ledgers.has(o.destination.text)) return 'none';
  if (!(await ledgers.has(o.oldDestination))) return 'none';
  if (o.policy === 'ignore') return 'ignored';
  if (o.policy === 'stop') {
    throw new OldStateError(
      said`the never-twice ledger of ${o.destination.text} is still as an earlier callctl wrote it (under "${o.oldDestination}", people as written, not by number): it is not used nor left behind unless you say so: ${HOW}`,
      { ledger: o.oldDestination, destination: o.destination.text },
    );
  }
  await ledgers.adopt(o.oldDestination, o.destination.text, o.rekey);
  return 'claimed';
}
