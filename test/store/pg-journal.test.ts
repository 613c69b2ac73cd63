import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { addSecret } from '../../src/redact.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { JournalKind } from '../../src/store/store.js';
import { freshDatabase } from '../helpers/postgres.js';
import { journalStoreContract } from '../helpers/journal-contract.js';
import { tempDir } from '../helpers/temp.js';

/** The journals of a PostgreSQL store, as a run gets them. */
const journals = (at: string, kind: JournalKind) => new PostgresStore({ url: at, dir: tempDir() }).journals(kind);

// One fresh database for each test of the contract (each lists every journal of its store).
const urls: string[] = [];
let url: string;
beforeAll(async () => {
  for (let i = 0; i < 3; i++) urls.push(await freshDatabase('journal'));
  url = await freshDatabase('journal');
});

async function rows(sql: string, args: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql, args)).rows;
  } finally {
    await c.end();
  }
}

describe('the PostgreSQL journal store', () => {
  journalStoreContract(
    () => journals(urls.shift()!, 'reach'),
    // A record is one committed row: a run killed while writing one leaves nothing of it.
    () => undefined,
  );

  it('keeps a known secret quoted in a record out of the database', async () => {
    addSecret('tok-5d2e8f1a9c3b');
    const store = await journals(url, 'reach');
    const j = store.open('s-1', () => ({ type: 'start' }));
    await j.append({ type: 'failed', error: 'POST https://flex.example/api/push/tok-5d2e8f1a9c3b: refused' }, true);
    await j.close();
    const kept = await rows('SELECT record FROM callctl_journals WHERE name = $1', ['s-1']);
    expect(kept).toHaveLength(2);
    expect(JSON.stringify(kept)).not.toContain('tok-5d2e8f1a9c3b');
    expect(JSON.stringify(kept)).toContain('***');
  });

  it('keeps upload and reach journals apart, and prunes only old finished ones', async () => {
    const uploads = await journals(url, 'upload');
    const reach = await journals(url, 'reach');
    for (const [store, name, done] of [
      [uploads, 'wf-old-done', true],
      [uploads, 'wf-old-open', false],
      [reach, 'wf-old-done', true],
    ] as const) {
      const j = store.open(name, () => ({ type: 'start' }));
      await j.append({ type: done ? 'done' : 'sending' }, true);
      await j.close();
    }
    expect(await uploads.list('wf-')).toEqual(['wf-old-done', 'wf-old-open']);
    await rows("UPDATE callctl_journals SET at = now() - interval '40 days' WHERE kind = 'upload'");
    const removed = await uploads.prune((records) => records.some((r) => r.type === 'done'));
    expect(removed).toEqual([uploads.where('wf-old-done')]);
    expect(await uploads.list('wf-')).toEqual(['wf-old-open']);
    // The reach journal of the same name is another journal: untouched.
    expect(await reach.read('wf-old-done')).toEqual([{ type: 'start' }, { type: 'done' }]);
  });
});
