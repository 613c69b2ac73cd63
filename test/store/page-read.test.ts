import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookRecord } from '../../src/store/events.js';
import { NdjsonEvents } from '../../src/store/files/events.js';
import { LineCount, pageOfLog } from '../../src/store/files/page-read.js';
import { PostgresEvents } from '../../src/store/postgres/events.js';
import type { EventFilter, EventStore, StoredEvent } from '../../src/store/events.js';
import { migratedDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

// The inspector's pages (EventStore.page), newest first, against each store's own oldest-first
// read of the same filter: every page in turn gives the read's events reversed, each once.

const TYPES = ['task.end', 'plan.end', 'workflow.api_push'] as const;
const VERDICTS = ['verified', 'rejected', 'unverified'] as const;

function record(i: number): HookRecord {
  const type = i % 11 === 0 ? null : TYPES[i % 3]!;
  const body =
    type === 'workflow.api_push'
      ? {
          workflow_id: 'wf',
          call: { task_id: `T-${i % 4}`, call_id: `c${i}` },
          callee: { callee_number: `+6281000${i % 5}` },
        }
      : { TaskID: `T-${i % 4}`, PlanName: i % 2 ? 'P-odd' : 'P-even', TaskName: `n "${i}" \\ é` };
  return {
    v: 1,
    time: new Date(Date.UTC(2026, 10, 20, 10, 0, i)).toISOString(),
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    bytes: 10,
    type,
    ...(type ? { verdict: VERDICTS[i % 3]!, key: `k${i % 37}` } : {}),
    duplicate: i % 5 === 4,
    retry: i % 5 === 4 ? 1 : 0,
    status: type ? 200 : 400,
  };
}

const N = 300;
const filters: EventFilter[] = [
  {},
  { types: new Set(['task.end']) },
  { types: new Set(['refused', 'plan.end']) },
  { verdicts: new Set(['rejected']) },
  { verdicts: new Set(['refused']) },
  { retries: true },
  { retries: false, types: new Set(['workflow.api_push']) },
  { plan: 'P-odd' },
  { task: 'T-2' },
  { callee: '+62810003' },
  { key: 'k5' },
  { since: Date.UTC(2026, 10, 20, 10, 1, 0), until: Date.UTC(2026, 10, 20, 10, 3, 0) },
  { task: 'T-nobody' },
];

async function all(store: EventStore, filter: EventFilter): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of store.read(filter)) out.push(e);
  return out;
}

async function paged(store: EventStore, filter: EventFilter, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await store.page(filter, { limit, ...(before ? { before } : {}) });
    ids.push(...page.events.map((e) => e.id));
    if (!page.more) return ids;
    before = page.events.at(-1)!.id;
  }
}

function contract(name: string, open: () => Promise<EventStore>) {
  describe(`${name}: pages newest first`, () => {
    let store: EventStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(() => store.close());

    it('every filter, every page size: the read reversed, each event once', async () => {
      for (const filter of filters) {
        const want = (await all(store, filter)).map((e) => e.id).reverse();
        for (const limit of [1, 7, 50, 1000])
          expect(await paged(store, filter, limit), JSON.stringify([...Object.entries(filter)])).toEqual(want);
      }
      expect((await store.page({}, { limit: 1 })).newest).toBe((await all(store, {})).at(-1)!.id);
    });

    it('after an id: only newer events, newest first (the live list)', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 0, max: N }),
          fc.integer({ min: 0, max: filters.length - 1 }),
          async (cut, f) => {
            const everything = await all(store, {});
            // The NDJSON log has a line that does not read: one event fewer than N.
            const after = cut === 0 ? '0' : everything[Math.min(cut, everything.length) - 1]!.id;
            const want = (await all(store, filters[f]!))
              .filter((e) => BigInt(e.id) > BigInt(after))
              .map((e) => e.id)
              .reverse();
            const page = await store.page(filters[f]!, { after, limit: 1000 });
            expect(page.events.map((e) => e.id)).toEqual(want);
          },
        ),
        { numRuns: 30 },
      );
    });
  });
}

contract('NDJSON log', async () => {
  const path = join(tempDir('callctl-page-'), 'events.ndjson');
  // A line that does not read counts as one line (ids are line numbers), as hooks events counts it,
  // a carriage return inside it too: only a newline ends a line.
  for (let i = 0; i < N; i++) appendFileSync(path, i === 17 ? 'not\rjson\n' : `${JSON.stringify(record(i))}\n`);
  return NdjsonEvents.open(path);
});

contract('PostgreSQL', async () => {
  const store = await PostgresEvents.open(await migratedDatabase('page'));
  for (let i = 0; i < N; i++) {
    const r = record(i);
    await store.append(r, r.key);
  }
  return store;
});

describe('NDJSON pages read in chunks of any size', () => {
  it('give the same pages wherever the chunks cut the lines, and a line appended half-way is not shown until whole', () => {
    const path = join(tempDir('callctl-page-'), 'events.ndjson');
    for (let i = 0; i < 60; i++) appendFileSync(path, `${JSON.stringify(record(i))}\n`);
    const want = pageOfLog(path, new LineCount(), new Map(), {}, { limit: 1000 });
    expect(want.events).toHaveLength(60);
    for (const chunk of [1, 2, 13, 100, 333, 4096]) {
      for (const filter of filters) {
        const ids: string[] = [];
        const hint = new Map<number, number>();
        let before: string | undefined;
        for (;;) {
          const page = pageOfLog(
            path,
            new LineCount(),
            hint,
            filter,
            { limit: 4, ...(before ? { before } : {}) },
            chunk,
          );
          ids.push(...page.events.map((e) => e.id));
          if (!page.more) break;
          before = page.events.at(-1)!.id;
        }
        const all = pageOfLog(path, new LineCount(), new Map(), filter, { limit: 1000 });
        expect(ids).toEqual(all.events.map((e) => e.id));
      }
    }
    appendFileSync(path, '{"v":1,"time":"2026-11-20T11:00:00.000Z","ha');
    const count = new LineCount();
    expect(pageOfLog(path, count, new Map(), {}, { limit: 1 }).newest).toBe('60');
    appendFileSync(path, 'lf":1}\n');
    const page = pageOfLog(path, count, new Map(), {}, { limit: 1 });
    expect(page.newest).toBe('61');
    expect(page.events.map((e) => e.id)).toEqual(['61']);
  });
});

describe('NDJSON read (hooks events)', () => {
  it('reads a line longer than a chunk whole, a character cut between chunks too, and no line after the last newline', async () => {
    const path = join(tempDir('callctl-read-'), 'events.ndjson');
    const long = { ...record(1), body: JSON.stringify({ TaskID: 'T-LONG', TaskName: 'é€😀'.repeat(60_000) }) };
    // The last record has no newline yet (being written, or cut short): pages do not count it,
    // so neither may the read, or its id would be one `hooks show` and the inspector do not know.
    appendFileSync(path, `${JSON.stringify(record(0))}\n${JSON.stringify(long)}\n${JSON.stringify(record(2))}`);
    const store = await NdjsonEvents.open(path);
    try {
      const got = await all(store, {});
      expect(got.map((e) => e.id)).toEqual(['1', '2']);
      expect(got[1]!.record.body).toBe(long.body);
      expect(store.skipped).toBe(1);
      const page = await store.page({}, { limit: 10 });
      expect(page.events.map((e) => e.id)).toEqual(['2', '1']);
      appendFileSync(path, '\n');
      const whole = await all(store, {});
      expect(whole.map((e) => e.id)).toEqual(['1', '2', '3']);
      expect(whole[2]!.record.time).toBe(record(2).time);
      expect((await store.get('3'))?.record.time).toBe(record(2).time);
    } finally {
      await store.close();
    }
  });
});
