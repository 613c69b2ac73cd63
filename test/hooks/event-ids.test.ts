import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { taskSign } from '../../src/signing/sign.js';
import { EventLog } from '../../src/store/files/event-log.js';
import { NdjsonEvents } from '../../src/store/files/events.js';
import { PostgresEvents } from '../../src/store/postgres/events.js';
import { migratedDatabase } from '../helpers/postgres.js';
import { eventually, tcpProxy, viaProxy } from '../store/helpers.js';
import { post, tempDir, logEvents, startListener, type Listener, type ListenerEvent } from './helpers.js';

const KEY = 'ids-key';
const task = (id: string) => JSON.stringify({ TaskID: id, TaskName: 'ids', Sign: taskSign(id, KEY) });
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/** An app behind the receivers: what each forward carried; `onFirst` runs before the first is answered. */
async function app(onFirst?: () => Promise<void>) {
  const got: Array<{ task: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    let b = '';
    req.on('data', (c: Buffer) => (b += c.toString()));
    req.on('end', () => {
      got.push({ task: (JSON.parse(b) as { TaskID: string }).TaskID, headers: req.headers });
      const first = got.length === 1 && onFirst ? onFirst() : Promise.resolve();
      void first.then(() => res.end('{}'));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push({ close: () => new Promise((r) => server.close(r)) });
  return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/app` };
}

const events = (l: Listener) => {
  const seen: ListenerEvent[] = [];
  l.on((e) => seen.push(e));
  return seen;
};

describe('forwards an app can deduplicate', () => {
  it('a forward sent again after its outcome could not be recorded carries the same event id, across two receivers', async () => {
    const db = await migratedDatabase('ids');
    const proxy = await tcpProxy([{ host: '127.0.0.1', port: Number(new URL(db).port) }]);
    // The store goes away while A's forward is at the app: the app got it, A cannot record so.
    const target = await app(() => proxy.cut());
    const storeA = await PostgresEvents.open(viaProxy(db, proxy));
    const storeB = await PostgresEvents.open(db);
    const options = { port: 0, keys: [KEY], forwardTo: target.url, forwardLeaseMs: 1_000 };
    const a = await startListener({ ...options, store: storeA });
    const seenA = events(a);
    open.push(proxy, storeA, storeB, a);
    expect((await post(a.url, task('T-ID-1'))).status).toBe(200);
    await eventually(() => seenA.some((e) => e.kind === 'error'), 10_000, 'A tells it could not record');
    expect(seenA.find((e) => e.kind === 'error')).toMatchObject({
      message: expect.stringMatching(/^cannot record the forward of event \d+: /),
    });
    // Receiver B, on the same store, takes the forward over once A's lease has run out.
    const b = await startListener({ ...options, store: storeB });
    open.push(b);
    await eventually(() => target.got.length === 2, 15_000, 'the forward taken over');
    const [first, again] = target.got;
    expect(first!.task).toBe('T-ID-1');
    expect(again!.task).toBe('T-ID-1');
    const id = first!.headers['x-callctl-event-id'];
    expect(id).toMatch(/^\d+@\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    expect(again!.headers['x-callctl-event-id']).toBe(id);
    expect(again!.headers['x-callctl-event']).toBe(first!.headers['x-callctl-event']);
    expect([first!.headers['x-callctl-attempt'], again!.headers['x-callctl-attempt']]).toEqual(['1', '2']);
    // The number is the store's, and a different event gets another id.
    const n = String(first!.headers['x-callctl-event']);
    expect(JSON.parse((await storeB.get(n))!.record.body!)).toMatchObject({ TaskID: 'T-ID-1' });
    await eventually(async () => (await storeB.get(n))!.forward?.state === 'done', 5_000, 'recorded by B');
    expect((await storeB.get(n))!.forward).toMatchObject({ state: 'done', attempts: 2 });
    expect((await post(b.url, task('T-ID-2'))).status).toBe(200);
    await eventually(() => target.got.length === 3, 5_000, 'the second event forwarded');
    expect(target.got[2]!.headers['x-callctl-event-id']).not.toBe(id);
  });

  it('a forward whose outcome could not be recorded for a moment (the store restarting) is recorded once it is back, not sent again', async () => {
    const db = await migratedDatabase('record-again');
    const proxy = await tcpProxy([{ host: '127.0.0.1', port: Number(new URL(db).port) }]);
    // The store goes away while the forward is at the app, and comes back 300 ms later.
    const target = await app(async () => {
      await proxy.cut();
      setTimeout(() => void proxy.restore(), 300);
    });
    const store = await PostgresEvents.open(viaProxy(db, proxy));
    const l = await startListener({ port: 0, keys: [KEY], store, forwardTo: target.url, forwardLeaseMs: 3_000 });
    open.push(proxy, store, l);
    const seen = events(l);
    expect((await post(l.url, task('T-AGAIN'))).status).toBe(200);
    const n = await new Promise<string>((r) => {
      const wait = () => (target.got[0] ? r(String(target.got[0].headers['x-callctl-event'])) : setTimeout(wait, 20));
      wait();
    });
    await eventually(
      async () => (await store.get(n).catch(() => undefined))?.forward?.state === 'done',
      10_000,
      'recorded',
    );
    await new Promise((r) => setTimeout(r, 3_500)); // past the lease: a takeover would have sent it again
    expect(target.got).toHaveLength(1);
    expect(seen.filter((e) => e.kind === 'error')).toEqual([]);
  });

  it('one number per event: the live view, the forward and hooks show agree, across a restart', async () => {
    const target = await app();
    const path = join(tempDir(), 'events.ndjson');
    const run = async (ids: string[]) => {
      const log = EventLog.open(path);
      const l = await startListener({ port: 0, keys: [KEY], store: logEvents(log), forwardTo: target.url });
      const seen = events(l);
      for (const id of ids) expect((await post(l.url, task(id))).status).toBe(200);
      expect((await post(l.url, 'not json')).status).toBe(400); // refused requests are numbered too
      await eventually(() => seen.filter((e) => e.kind === 'forward').length === ids.length, 5_000, 'forwards');
      await l.close();
      await log.close();
      return seen;
    };
    const one = await run(['T-N-1', 'T-N-2']);
    const two = await run(['T-N-3']);
    const shown = [...one, ...two].filter((e) => e.kind === 'event' || e.kind === 'refused');
    expect(shown.map((e) => (e as { seq: number }).seq)).toEqual([1, 2, 3, 4, 5]);
    const store = NdjsonEvents.open(path);
    for (const e of shown) {
      const stored = await store.get(String((e as { seq: number }).seq));
      expect(stored!.record.body).toBe((e as { record: { body?: string } }).record.body);
    }
    const forwards = target.got.map((g) => [g.task, g.headers['x-callctl-event'], g.headers['x-callctl-attempt']]);
    expect(forwards.sort()).toEqual([
      ['T-N-1', '1', '1'],
      ['T-N-2', '2', '1'],
      ['T-N-3', '4', '1'],
    ]);
  });
});

describe('forwards taken over', () => {
  it("a receiver takes over all of a dead one's forwards at once, not one hundred a sweep", async () => {
    const db = await migratedDatabase('takeover');
    // Receiver A forwards to an app that never answers, with a short lease: what it holds is
    // abandoned (its queued forwards never start, and those under way are never renewed).
    const hanging = createServer(() => undefined);
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    open.push({ close: () => (hanging.closeAllConnections(), new Promise((r) => hanging.close(r))) });
    const storeA = await PostgresEvents.open(db);
    const a = await startListener({
      port: 0,
      keys: [KEY],
      store: storeA,
      forwardTo: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`,
      forwardLeaseMs: 300,
      drainTimeoutMs: 100,
    });
    const N = 350;
    for (let i = 0; i < N; i++) expect((await post(a.url, task(`T-TAKE-${i}`))).status).toBe(200);
    await a.close();
    await storeA.close();
    await new Promise((r) => setTimeout(r, 400)); // every lease has run out
    // Receiver B sweeps once as it starts, then every min(lease / 2, 5 s): its periodic sweep is
    // held here (its interval never fires), so the one sweep at its start must take over all N.
    // Taken one hundred a sweep, 100 would arrive and no more, however long the test waited.
    const target = await app();
    const storeB = await PostgresEvents.open(db);
    vi.useFakeTimers({ toFake: ['setInterval'] });
    const b = await startListener({ port: 0, keys: [KEY], store: storeB, forwardTo: target.url }).finally(() =>
      vi.useRealTimers(),
    );
    open.push(storeB, b);
    await eventually(() => target.got.length >= N, 60_000, `all ${N} forwards taken over by the first sweep`);
    expect(new Set(target.got.map((g) => g.task)).size).toBe(N);
  }, 90_000);

  it('events past a full forward queue wait in the store, not in memory past their lease: each sent once, on its first attempt', async () => {
    const db = await migratedDatabase('left');
    // The app takes 100 ms an event; A's queue holds 4: the last of 60 wait far past a 1 s lease.
    const got: Array<{ task: string; id: string; attempt: string }> = [];
    const server = createServer((req, res) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c.toString()));
      req.on('end', () => {
        got.push({
          task: (JSON.parse(b) as { TaskID: string }).TaskID,
          id: String(req.headers['x-callctl-event-id']),
          attempt: String(req.headers['x-callctl-attempt']),
        });
        setTimeout(() => res.end('{}'), 100);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const [storeA, storeB] = [await PostgresEvents.open(db), await PostgresEvents.open(db)];
    open.push({ close: () => (server.closeAllConnections(), new Promise((r) => server.close(r))) }, storeA, storeB);
    const options = { port: 0, keys: [KEY], forwardTo: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
    const a = await startListener({ ...options, store: storeA, forwardQueue: 4, forwardLeaseMs: 1_000 });
    const b = await startListener({ ...options, store: storeB, forwardQueue: 4, forwardLeaseMs: 1_000 });
    open.push(a, b);
    const [seenA, seenB] = [events(a), events(b)];
    const N = 60;
    const answers = await Promise.all(Array.from({ length: N }, (_, i) => post(a.url, task(`T-LEFT-${i}`))));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    await eventually(() => got.length >= N, 20_000, `all ${N} forwarded`);
    await new Promise((r) => setTimeout(r, 1_500)); // a lease more: any second sending has had its turn
    expect(got).toHaveLength(N);
    expect(new Set(got.map((g) => g.id)).size).toBe(N);
    expect(got.every((g) => g.attempt === '1')).toBe(true);
    // Neither receiver found a forward it meant to send taken from it.
    expect([...seenA, ...seenB].filter((e) => e.kind === 'error')).toEqual([]);
    const forwards = async () => {
      const all = [];
      for await (const e of storeB.read({})) all.push(e.forward);
      return all;
    };
    await eventually(async () => (await forwards()).every((f) => f?.state === 'done'), 5_000, 'all recorded done');
    expect(await forwards()).toEqual(Array.from({ length: N }, () => expect.objectContaining({ attempts: 1 })));
  });
});

describe('events waiting in a shared store', () => {
  it('are counted as deferred while they wait (the gauge), and named when the receiver stops', async () => {
    const db = await migratedDatabase('waiting');
    // An app that never answers: the 4 forwards of the queue stay under way, the rest wait.
    const hanging = createServer(() => undefined);
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    open.push({ close: () => (hanging.closeAllConnections(), new Promise((r) => hanging.close(r))) });
    const store = await PostgresEvents.open(db);
    open.push(store);
    const l = await startListener({
      port: 0,
      keys: [KEY],
      store,
      forwardTo: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/`,
      forwardQueue: 4,
      forwardLeaseMs: 60_000,
      drainTimeoutMs: 100,
    });
    const seen = events(l);
    for (let i = 0; i < 20; i++) expect((await post(l.url, task(`T-WAIT-${i}`))).status).toBe(200);
    // Counted by the sweep (every 5 s with this lease).
    await eventually(() => l.stats().forwardDeferred === 16, 10_000, '16 counted as waiting in the store');
    expect(l.stats().forwardQueue).toBe(4);
    await l.close();
    expect(seen.filter((e) => e.kind === 'error').map((e) => (e as { message: string }).message)).toEqual([
      expect.stringMatching(/^4 accepted events not forwarded before stopping/),
      '16 accepted events wait in the store for a receiver with room (claimed by none): the next receiver to start forwards them, or hooks replay --since',
    ]);
  }, 20_000);
});

describe('a forward whose retries outlast its lease', () => {
  it('keeps its claim (each retry renews it): not taken over while under way, sent once', async () => {
    const store = await PostgresEvents.open(await migratedDatabase('outlast'));
    // The app answers slowly, and 503 twice before it takes the event.
    const attempts: string[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        attempts.push(String(req.headers['x-callctl-attempt']));
        setTimeout(() => (attempts.length <= 2 ? res.writeHead(503).end() : res.end('{}')), 400);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    open.push({ close: () => new Promise((r) => server.close(r)) }, store);
    // A lease shorter than the three attempts: the sweep (every 300 ms) would take it over.
    const l = await startListener({
      port: 0,
      keys: [KEY],
      store,
      forwardTo: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      forwardLeaseMs: 600,
    });
    open.push(l);
    expect((await post(l.url, task('T-OUTLAST'))).status).toBe(200);
    let id = '';
    await eventually(
      async () => {
        for await (const e of store.read({})) id = e.id;
        return (await store.get(id))?.forward?.state === 'done';
      },
      15_000,
      'the forward done',
    );
    await new Promise((r) => setTimeout(r, 1_000)); // a sweep that would take it over has had its turn
    expect(attempts).toEqual(['1', '2', '3']);
    expect((await store.get(id))!.forward).toMatchObject({ state: 'done', status: 200, attempts: 3 });
  });
});

/** An app that answers 503 to everything until `up()`; then what each forward carried. */
async function appDown() {
  let up = false;
  const got: Array<{ task: string; id: string; attempt: string }> = [];
  const server = createServer((req, res) => {
    let b = '';
    req.on('data', (c: Buffer) => (b += c.toString()));
    req.on('end', () => {
      if (!up) return void res.writeHead(503).end();
      got.push({
        task: (JSON.parse(b) as { TaskID: string }).TaskID,
        id: String(req.headers['x-callctl-event-id']),
        attempt: String(req.headers['x-callctl-attempt']),
      });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  open.push({ close: () => new Promise((r) => server.close(r)) });
  return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, up: () => (up = true) };
}

describe('failed forwards', () => {
  it('are tried again later, not left failed: the app down for a while still gets each event, under one event id', async () => {
    const store = await PostgresEvents.open(await migratedDatabase('refail'));
    // The app refuses everything until it is told to come back.
    const app = await appDown();
    const { got } = app;
    open.push(store);
    const l = await startListener({ port: 0, keys: [KEY], store, forwardTo: app.url, forwardLeaseMs: 800 });
    open.push(l);
    const seen = events(l);
    expect((await post(l.url, task('T-FAIL-1'))).status).toBe(200);
    await eventually(
      () => seen.some((e) => e.kind === 'forward' && e.final),
      20_000,
      'the forward failed after its retries',
    );
    let id = '';
    for await (const e of store.read({})) id = e.id;
    // Recorded as failed just after the line above is told (and claimed again by each retry of
    // the sweep, an eighth of the lease per attempt later): looked for, not read once.
    await eventually(async () => (await store.get(id))!.forward?.state === 'failed', 5_000, 'recorded as failed');
    app.up();
    await eventually(() => got.length === 1, 10_000, 'the failed forward tried again');
    expect(got[0]!.task).toBe('T-FAIL-1');
    expect(got[0]!.id).toMatch(new RegExp(`^${id}@`));
    expect(Number(got[0]!.attempt)).toBeGreaterThan(1);
    await eventually(async () => (await store.get(id))!.forward?.state === 'done', 5_000, 'recorded as done');
  });

  it('with an NDJSON log (one receiver, no database) too: read back from the log and sent again, under one event id', async () => {
    const app = await appDown();
    const { got } = app;
    const log = EventLog.open(join(tempDir(), 'events.ndjson'));
    open.push(log);
    const l = await startListener({
      port: 0,
      keys: [KEY],
      store: logEvents(log),
      forwardTo: app.url,
      forwardLeaseMs: 800,
    });
    open.push(l);
    const seen = events(l);
    expect((await post(l.url, task('T-FAIL-LOG'))).status).toBe(200);
    await eventually(() => seen.some((e) => e.kind === 'forward' && e.final), 20_000, 'the forward failed');
    const first = seen.find((e) => e.kind === 'forward' && e.final) as { seq: number; attempt: number };
    app.up();
    await eventually(() => got.length === 1, 10_000, 'the failed forward tried again');
    expect(got[0]!.task).toBe('T-FAIL-LOG');
    expect(got[0]!.id).toMatch(new RegExp(`^${first.seq}@`));
    expect(Number(got[0]!.attempt)).toBe(first.attempt + 1);
    await new Promise((r) => setTimeout(r, 1_000)); // a sweep more: sent once
    expect(got).toHaveLength(1);
  });
});
