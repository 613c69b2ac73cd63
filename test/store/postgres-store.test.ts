import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordBody, type HookRecord } from '../../src/store/events.js';
import type { Appended } from '../../src/store/events.js';
import { PostgresEvents } from '../../src/store/postgres/events.js';
import { checkSchema, SCHEMA_VERSION, schemaStatus } from '../../src/store/postgres/schema.js';
import { freshDatabase, migrateDatabase, onDatabase } from '../helpers/postgres.js';

let url: string;
let store: PostgresEvents;

beforeAll(async () => {
  url = await freshDatabase('store');
  store = await PostgresEvents.open(url);
});
afterAll(() => store?.close());

function record(body: object, time = new Date().toISOString(), type: HookRecord['type'] = 'task.end'): HookRecord {
  return {
    v: 1,
    time,
    method: 'POST',
    path: '/',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    bytes: 10,
    type,
    verdict: 'verified',
    key: 'k',
    duplicate: false,
    retry: 0,
    status: 200,
  };
}

describe('PostgreSQL store', () => {
  it('migrates once even when ten callers migrate at the same moment, and records the version', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => migrateDatabase(url)));
    expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
    expect(results.every((r) => r.applied.length > 0 || r.from === SCHEMA_VERSION)).toBe(true);
    const status = await onDatabase(url, schemaStatus);
    expect(status.version).toBe(SCHEMA_VERSION);
    expect(status.history.map((h) => h.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(() => checkSchema(status)).not.toThrow();
  });

  it('counts arrivals of one identity atomically: 20 copies at once are one new event and retries 1..19', async () => {
    const copies = await Promise.all(
      Array.from({ length: 20 }, () => store.append(record({ TaskID: 'T-race', Sign: 's' }), 'task.end#race')),
    );
    expect(copies.map((c) => c.retry).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const first = copies.find((c) => c.retry === 0)!;
    expect(new Set(copies.map((c) => c.firstId))).toEqual(new Set([first.id]));
    const rows = [];
    for await (const e of store.read({ task: 'T-race' })) rows.push(e);
    expect(rows).toHaveLength(20);
    expect(rows.filter((e) => !e.record.duplicate)).toHaveLength(1);
  });

  it('gives the forward of an event to exactly one appender, and a failed forward to one later retry', async () => {
    const claim = (owner: string) => ({ owner, leaseMs: 60_000 });
    const arrivals = await Promise.all(
      ['a', 'b', 'a', 'b', 'c'].map((o) =>
        store.append(record({ TaskID: 'T-fwd', Sign: 's' }), 'task.end#fwd', claim(o)),
      ),
    );
    expect(arrivals.filter((a) => a.claimed)).toHaveLength(1);
    const holder = arrivals.find((a) => a.claimed)!;
    // Only the holder can finish it.
    await store.finishForward(holder.id, 'someone-else', { ok: false, attempts: 1 });
    expect((await store.get(holder.id))!.forward!.state).toBe('claimed');
    const owner = (await store.get(holder.id))!.forward!.owner!;
    await store.finishForward(holder.id, owner, { ok: false, status: 502, attempts: 4 });
    expect((await store.get(holder.id))!.forward).toMatchObject({ state: 'failed', status: 502, attempts: 4 });
    const retries = await Promise.all(
      ['a', 'b', 'c'].map(async (o) => {
        const a = await store.append(record({ TaskID: 'T-fwd', Sign: 's' }), 'task.end#fwd', claim(o));
        return store.reclaimFailed(a, claim(o));
      }),
    );
    expect(retries.filter(Boolean)).toHaveLength(1);
  });

  it('hands a forward whose lease ran out (its instance died) to one other instance', async () => {
    const a = await store.append(record({ TaskID: 'T-lease', Sign: 's' }), 'task.end#lease', {
      owner: 'dead',
      leaseMs: 1,
    });
    expect(a).toMatchObject({ claimed: true, attempt: 1 });
    expect(a.left).toBeUndefined();
    await new Promise((r) => setTimeout(r, 20));
    const [x, y] = await Promise.all([
      store.takeAbandoned({ owner: 'x', leaseMs: 60_000 }, 100),
      store.takeAbandoned({ owner: 'y', leaseMs: 60_000 }, 100),
    ]);
    const taken = [...x, ...y].filter((e) => e.id === a.id);
    expect(taken).toHaveLength(1);
    expect(JSON.parse(taken[0]!.record.body!)).toEqual({ TaskID: 'T-lease', Sign: 's' });
    // The dead owner's first attempt may have been made: the taker's is the second, counted as taken.
    expect(taken[0]!.forward?.attempts).toBe(2);
    expect(await store.takeAbandoned({ owner: 'z', leaseMs: 60_000 }, 100)).toEqual([]);
    // The dead owner, were it to come back, cannot renew its claim; the new owner can (its next attempt).
    expect(await store.renewClaim(a.id, { owner: 'dead', leaseMs: 60_000 })).toBe(false);
    const newOwner = x.some((e) => e.id === a.id) ? 'x' : 'y';
    expect(await store.renewClaim(a.id, { owner: newOwner, leaseMs: 60_000 })).toBe(3);
  });

  it('leaves an event appended with a lapsed claim to the first taker, on its first attempt', async () => {
    const a = await store.append(record({ TaskID: 'T-left', Sign: 's' }), 'task.end#left', {
      owner: 'full',
      leaseMs: 0,
    });
    expect(a).toMatchObject({ claimed: true, left: true });
    expect(a.attempt).toBeUndefined();
    const [x, y] = await Promise.all([
      store.takeAbandoned({ owner: 'x', leaseMs: 60_000 }, 100),
      store.takeAbandoned({ owner: 'y', leaseMs: 60_000 }, 100),
    ]);
    const taken = [...x, ...y].filter((e) => e.id === a.id);
    expect(taken).toHaveLength(1);
    expect(taken[0]!.forward).toMatchObject({ state: 'claimed', attempts: 1 });
    expect(await store.renewClaim(a.id, { owner: 'full', leaseMs: 60_000 })).toBe(false);
  });

  it('renews and finishes 200 forwards at once, together, each with its own answer', async () => {
    const claim = { owner: 'many', leaseMs: 60_000 };
    const appended = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        store.append(record({ TaskID: `T-many-${i}`, Sign: 's' }), `task.end#many-${i}`, claim),
      ),
    );
    expect(appended.every((a) => a.claimed && a.attempt === 1)).toBe(true);
    const ids = appended.map((a) => a.id);
    // Another owner renews none; the owner renews each once (its second attempt), then again.
    expect(await Promise.all(ids.map((id) => store.renewClaim(id, { ...claim, owner: 'other' })))).toEqual(
      ids.map(() => false),
    );
    expect(await Promise.all(ids.map((id) => store.renewClaim(id, claim)))).toEqual(ids.map(() => 2));
    expect(await Promise.all(ids.slice(0, 10).map((id) => store.renewClaim(id, claim)))).toEqual(
      ids.slice(0, 10).map(() => 3),
    );
    // Twice at once for one event: never in one statement, each its own attempt.
    expect(await Promise.all([store.renewClaim(ids[3]!, claim), store.renewClaim(ids[3]!, claim)])).toEqual([4, 5]);
    await Promise.all(
      ids.map((id, i) =>
        store.finishForward(
          id,
          claim.owner,
          i % 2 ? { ok: true, status: 200, attempts: 1 } : { ok: false, error: 'refused', attempts: 3 },
        ),
      ),
    );
    const forwards = await Promise.all(ids.map(async (id) => (await store.get(id))!.forward));
    forwards.forEach((f, i) =>
      expect(f).toMatchObject(
        i % 2
          ? { state: 'done', status: 200, attempts: i === 3 ? 5 : i < 10 ? 3 : 2 }
          : { state: 'failed', error: 'refused', attempts: 3 },
      ),
    );
    // A finished forward is no longer claimed: renewing it is refused.
    expect(await store.renewClaim(ids[1]!, claim)).toBe(false);
  });

  it('starts a new event once the dedup window has passed', async () => {
    const short = await PostgresEvents.open(url, { windowMs: 1000 });
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const one = await short.append(record({ TaskID: 'T-win', Sign: 's' }, new Date(t0).toISOString()), 'task.end#win');
    const two = await short.append(
      record({ TaskID: 'T-win', Sign: 's' }, new Date(t0 + 500).toISOString()),
      'task.end#win',
    );
    const three = await short.append(
      record({ TaskID: 'T-win', Sign: 's' }, new Date(t0 + 5000).toISOString()),
      'task.end#win',
    );
    await short.close();
    expect([one.retry, two.retry, three.retry]).toEqual([0, 1, 0]);
    expect(three.firstId).toBe(three.id);
  });

  it('forgets identities not seen for twice the window, and keeps counting the others', async () => {
    const short = await PostgresEvents.open(url, { windowMs: 1000 });
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms).toISOString();
    await short.append(record({ TaskID: 'T-old', Sign: 's' }, at(-5000)), 'task.end#forget-old');
    const fresh = await short.append(record({ TaskID: 'T-new', Sign: 's' }, at(0)), 'task.end#forget-new');
    expect(await short.forgetKeys(new Date(now - 2000))).toBeGreaterThanOrEqual(1);
    const keys = await onDatabase(url, async (c) =>
      (
        await c.query<{ key: string }>(
          "SELECT key FROM callctl_event_keys WHERE key IN ('task.end#forget-old', 'task.end#forget-new')",
        )
      ).rows.map((r) => r.key),
    );
    expect(keys).toEqual(['task.end#forget-new']);
    // The kept identity still counts its retries, with the same first event.
    const again = await short.append(record({ TaskID: 'T-new', Sign: 's' }, at(300)), 'task.end#forget-new');
    expect([again.retry, again.firstId]).toEqual([1, fresh.id]);
    await short.close();
  });

  it('forgetting while arrivals of an old identity come counts them exactly as without it', async () => {
    const short = await PostgresEvents.open(url, { windowMs: 1000 });
    const now = Date.now();
    await short.append(
      record({ TaskID: 'T-forget-race', Sign: 's' }, new Date(now - 5000).toISOString()),
      'task.end#forget-race',
    );
    const [, ...arrivals] = await Promise.all([
      short.forgetKeys(new Date(now - 2000)),
      ...Array.from({ length: 10 }, (_, i) =>
        short.append(
          record({ TaskID: 'T-forget-race', Sign: 's' }, new Date(now + i).toISOString()),
          'task.end#forget-race',
        ),
      ),
    ]);
    await short.close();
    // Past the window: one new event, and the others its retries, whether or not the old row was
    // deleted first.
    expect((arrivals as Appended[]).map((a) => a.retry).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('a receiver forgets old identities by itself once it appends', async () => {
    const short = await PostgresEvents.open(url, { windowMs: 100, forgetEveryMs: 200 });
    await short.append(
      record({ TaskID: 'T-self', Sign: 's' }, new Date(Date.now() - 60_000).toISOString()),
      'task.end#self',
    );
    const left = async () =>
      onDatabase(
        url,
        async (c) => (await c.query("SELECT 1 FROM callctl_event_keys WHERE key = 'task.end#self'")).rowCount,
      );
    expect(await left()).toBe(1);
    const until = Date.now() + 5000;
    while ((await left()) !== 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect(await left()).toBe(0);
    await short.close();
  });

  it('a closed store forgets no more, even when an append it was writing finishes after close()', async () => {
    const short = await PostgresEvents.open(url, { windowMs: 100, forgetEveryMs: 100 });
    // The pool opens its connection on the first append (the schema is checked on a connection of
    // its own): one append first, so that the batches below are written at once, one of them
    // still under way when close() is called.
    await short.append(record({ TaskID: 'T-closing-warm', Sign: 's' }), 'task.end#closing-warm');
    let passes = 0;
    const forget = short.forgetKeys.bind(short);
    short.forgetKeys = (before) => {
      passes++;
      return forget(before);
    };
    const appends = Array.from({ length: 5 }, (_, i) =>
      short.append(record({ TaskID: `T-closing-${i}`, Sign: 's' }), `task.end#closing-${i}`),
    );
    await new Promise((r) => setTimeout(r, 1)); // the first batch under way
    await short.close();
    const settled = await Promise.allSettled(appends);
    expect(settled.some((a) => a.status === 'fulfilled')).toBe(true); // one finished after close()
    await new Promise((r) => setTimeout(r, 400));
    expect(passes).toBe(0);
  });

  it('reads by filter, the latest N, from a position, and wakes a follower on a new event', async () => {
    const since = Date.now() - 1;
    await store.append(record({ PlanName: 'P-1', Timestamp: '1' }, undefined, 'plan.end'), 'plan.end#1');
    await store.append({ ...record({}, undefined, null), verdict: undefined, status: 415, body: undefined }, undefined);
    const plans = [];
    for await (const e of store.read({ plan: 'P-1' })) plans.push(e);
    expect(plans.map((e) => e.record.type)).toEqual(['plan.end']);
    const refused = [];
    for await (const e of store.read({ types: new Set(['refused']), since })) refused.push(e);
    expect(refused.map((e) => e.record.status)).toEqual([415]);
    const latest = [];
    for await (const e of store.read({ limit: 2 })) latest.push(e);
    expect(latest).toHaveLength(2);
    expect(Number(latest[0]!.id)).toBeLessThan(Number(latest[1]!.id));
    const after = [];
    for await (const e of store.read({}, latest[0]!.id)) after.push(e.id);
    expect(after).toEqual([latest[1]!.id]);

    const ac = new AbortController();
    const waiting = store.waitForMore(ac.signal);
    await new Promise((r) => setTimeout(r, 100));
    await store.append(record({ TaskID: 'T-follow', Sign: 's' }), 'task.end#follow');
    await expect(waiting).resolves.toBe(true);
  });

  it('keeps requests whose text PostgreSQL cannot hold (a NUL character), byte for byte, without failing the others of their batch', async () => {
    // Anyone can POST: a body with a raw NUL byte (refused: not JSON), and a JSON body whose ids
    // hold an escaped NUL (a forged event, rejected). Neither may make the store refuse writes.
    const rawNul = { ...record({}, undefined, null), verdict: undefined, status: 400, body: 'x\u0000y' };
    const escaped = JSON.stringify({ TaskID: 'T-nul\u0000z', Sign: 'bad' });
    const forged = { ...record({}), verdict: 'rejected' as const, status: 401, body: escaped };
    const fine = Array.from({ length: 5 }, (_, i) =>
      store.append(record({ TaskID: `T-nul-ok-${i}`, Sign: 's' }), `task.end#nul-ok-${i}`),
    );
    const results = await Promise.allSettled([
      store.append(rawNul, undefined),
      store.append(forged, '401|rejected|task.end#T-nul\u0000z'),
      ...fine,
    ]);
    expect(results.map((r) => r.status)).toEqual(Array(7).fill('fulfilled'));
    const [a, b] = results as Array<PromiseFulfilledResult<Appended>>;
    const readA = (await store.get(a!.value.id))!.record;
    expect(recordBody(readA).toString('utf8')).toBe('x\u0000y');
    const readB = (await store.get(b!.value.id))!.record;
    expect(recordBody(readB).toString('utf8')).toBe(escaped);
    const again = await store.append({ ...forged }, '401|rejected|task.end#T-nul\u0000z');
    expect(again.retry).toBe(1);
  });

  it('rejects an append when the database cannot be reached, saying why without the password', async () => {
    const bad = await PostgresEvents.open(url.replace(/:(\d+)\//, ':1/'));
    const err = await bad.append(record({ TaskID: 'T-x', Sign: 's' }), 'x').catch((e: Error) => e);
    await bad.close();
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/cannot write to the store: .*ECONNREFUSED/);
    expect((err as Error).message).not.toContain(new URL(url).password);
  });
});
