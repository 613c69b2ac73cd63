import type { JournalRecord, Store } from './store.js';
import { finishedUpload, readJournal } from './upload-journal.js';
import { Journal } from './row-journal.js';
import type { StoreListJson } from '../schemas/local-output.js';

/**
 * What the store keeps, for which destination (`callctl store list`): upload journals, the
 * journals of push and template CSV sends, and the never-twice ledgers.
 */
export async function inventory(store: Store): Promise<StoreListJson> {
  const uploads = await store.journals('upload');
  const sends = await store.journals('reach');
  const ledgers = await store.ledgers();
  const result: StoreListJson = { store: store.where, uploads: [], sends: [], ledgers: [] };
  for (const name of await uploads.list()) {
    const j = await readJournal(uploads, name);
    const h = j.header;
    if (!h) continue;
    const records = (await uploads.read(name)) ?? [];
    result.uploads.push({
      destination: h.destination ?? '',
      workflowId: h.workflowId,
      file: h.file,
      status: j.uncertain.length > 0 ? 'uncertain' : finishedUpload(records) ? 'done' : 'unfinished',
      batches: j.batches.length,
      entries: j.ackedEntries,
      uncertainBatches: j.uncertain.length,
      lastAt: lastAt(records),
      where: j.path,
    });
  }
  for (const name of await sends.list()) {
    const records = (await sends.read(name)) ?? [];
    const begin = records[0];
    if (!begin) continue;
    const states = await Journal.peekName(sends, name);
    const count = (s: string) => [...states.values()].filter((r) => r.state === s).length;
    result.sends.push({
      command: String(begin.command ?? name.split('-')[0]),
      destination: String(begin.destination),
      file: String(begin.file ?? ''),
      sent: count('sent'),
      failed: count('failed'),
      uncertain: count('about') + count('uncertain'),
      lastAt: lastAt(records),
      where: sends.where(name),
    });
  }
  for (const l of await ledgers.list())
    result.ledgers.push({ destination: l.destination, people: l.people, lastAt: l.lastAt ?? '' });
  return result;
}

function lastAt(records: readonly JournalRecord[]): string {
  let last = '';
  for (const r of records) if (typeof r.at === 'string' && r.at > last) last = r.at;
  return last;
}
