import { truncateSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { receive, type ReceiverEvent } from '../../src/hooks/receive.js';
import { openStore } from '../../src/store/resolve.js';
import { EventLog } from '../../src/store/files/event-log.js';
import { PostgresEvents } from '../../src/store/postgres/events.js';
import { taskSign } from '../../src/signing/sign.js';
import { migratedDatabase } from '../helpers/postgres.js';
import { eventually, tcpProxy, viaProxy } from '../store/helpers.js';
import { ensureBuilt, serveHooksChild, type ChildHooks } from './child.js';
import { post, tempDir, withDefaults, until, logEvents, startListener, type Listener } from './helpers.js';

const KEY = 'ready-key';
const task = (id: string) => JSON.stringify({ TaskID: id, TaskName: 'ready', Sign: taskSign(id, KEY) });
const open: Array<{ close(): unknown }> = [];
let child: ChildHooks | undefined;
beforeAll(ensureBuilt);
afterEach(async () => {
  child?.child.kill('SIGKILL');
  child = undefined;
  for (const o of open.splice(0).reverse()) await o.close();
});

/** Writes `bytes` on a connection of its own; the status answered. */
const rawStatus = (url: string, bytes: string) =>
  new Promise<number>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString()));
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])));
    socket.on('error', reject);
  });

/** The count of answers of a scrape, by their labels. */
const answers = (text: string) =>
  Object.fromEntries(
    [...text.matchAll(/^callctl_hooks_notifications_total\{(.*)\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]),
  );

const readyz = async (url: string) => {
  const a = await post(`${url}/readyz`, '', {}, 'GET');
  return { status: a.status, body: JSON.parse(a.body) as { ready: boolean; reasons?: string[] } };
};

describe('GET /readyz tells whether notifications would be acknowledged', () => {
  it('goes 503 with the reason while the store is down, and back by itself once it returns', async () => {
    const db = await migratedDatabase('ready');
    const proxy = await tcpProxy([{ host: '127.0.0.1', port: Number(new URL(db).port) }]);
    open.push(proxy);
    const store = await PostgresEvents.open(viaProxy(db, proxy));
    const listener = await startListener({ port: 0, keys: [KEY], store, metricsPath: '/metrics' });
    open.push(store, listener);
    expect(await readyz(listener.url)).toEqual({ status: 200, body: { ready: true } });
    expect((await post(`${listener.url}/healthz`, '', {}, 'GET')).status).toBe(200);

    await proxy.cut();
    await eventually(async () => (await readyz(listener.url)).status === 503, 10_000, 'not ready');
    const down = await readyz(listener.url);
    expect(down.body).toEqual({ ready: false, reasons: ['the store cannot be reached'] });
    expect((await post(listener.url, task('T-down'))).status).toBe(503);
    // Liveness is not readiness: the process still answers.
    expect((await post(`${listener.url}/healthz`, '', {}, 'GET')).status).toBe(200);

    // Back without a notification having to come first.
    await proxy.restore();
    await eventually(async () => (await readyz(listener.url)).status === 200, 15_000, 'ready');
    expect((await post(listener.url, task('T-up'))).status).toBe(200);
    // The outage's 503 is an answer like any other: an error ratio over the answers sees it.
    const text = (await post(`${listener.url}/metrics`, '', {}, 'GET')).body;
    expect(answers(text)).toEqual({
      'type="task.end",verdict="verified",status="503"': 1,
      'type="task.end",verdict="verified",status="200"': 1,
    });
    expect(text).toContain('callctl_hooks_refused_total{reason="write_failed"} 1');
  });

  it('the end of a store outage is told when the store is back, timed from its first failure', async () => {
    const db = await migratedDatabase('outage');
    const proxy = await tcpProxy([{ host: '127.0.0.1', port: Number(new URL(db).port) }]);
    open.push(proxy);
    const store = await openStore({
      flags: {},
      env: { CALLCTL_STORE: viaProxy(db, proxy) },
      profileStore: undefined,
      dir: tempDir(),
    });
    // The receiver's clock, moved by the test: the outage's length is read from it alone.
    let clock = 1_000_000;
    const told: ReceiverEvent[] = [];
    const stop = new AbortController();
    const running = receive(withDefaults({ port: 0, keys: [KEY] }), {
      store,
      signal: stop.signal,
      now: () => clock,
      onEvent: (e) => told.push(e),
    });
    open.push(store, { close: () => (stop.abort(), running) });
    await eventually(() => told.some((e) => e.kind === 'ready'), 15_000, 'listening');
    const receiver = told.find((e) => e.kind === 'listening')!;

    await proxy.cut();
    expect((await post(receiver.url, task('T-OUT-1'))).status).toBe(503);
    clock += 4_000;
    expect((await post(receiver.url, task('T-OUT-2'))).status).toBe(503);
    clock += 8_000;
    await proxy.restore();
    // Back: told without a notification having to come (12 s after the first failure).
    await eventually(() => told.some((e) => e.kind === 'recovered'), 15_000, 'the back line');
    clock += 44_000;
    expect((await post(receiver.url, task('T-OUT-3'))).status).toBe(200);
    expect(told.filter((e) => e.kind === 'recovered')).toEqual([{ kind: 'recovered', ms: 12_000, refused: 2 }]);
  });

  it('goes 503 while the store refuses writes though it answers reads, and back once it takes them', async () => {
    const db = await migratedDatabase('ready-writes');
    const store = await PostgresEvents.open(db);
    const listener = await startListener({ port: 0, keys: [KEY], store });
    open.push(store, listener);
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: db });
    await admin.connect();
    open.push({ close: () => admin.end() });
    expect(await readyz(listener.url)).toEqual({ status: 200, body: { ready: true } });
    // Every insert refused (as a pooler that lost the statement, a revoked right, a read-only
    // server refuse it), while reads go on.
    await admin.query(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'writes refused here'; END $$`);
    await admin.query(
      'CREATE TRIGGER refuse BEFORE INSERT ON callctl_event_keys FOR EACH STATEMENT EXECUTE FUNCTION refuse()',
    );
    await eventually(async () => (await readyz(listener.url)).status === 503, 10_000, 'not ready');
    expect((await readyz(listener.url)).body).toEqual({
      ready: false,
      reasons: [expect.stringMatching(/^the store refuses writes \(writes refused here/)],
    });
    expect((await post(listener.url, task('T-refused'))).status).toBe(503);
    await admin.query('DROP TRIGGER refuse ON callctl_event_keys');
    await eventually(async () => (await readyz(listener.url)).status === 200, 20_000, 'ready');
    expect((await post(listener.url, task('T-taken'))).status).toBe(200);
  });

  it("goes 503 while the log's disk is full, and back once there is room", async () => {
    const log = join(tempDir(), 'events.ndjson');
    child = await serveHooksChild(['--key', KEY, '--log', log], { fileLimitKiB: 8 });
    const url = child.url;
    expect((await readyz(url)).status).toBe(200);
    let full = false;
    for (let i = 0; i < 100 && !full; i++) full = (await post(url, task(`T-FULL-${i}`))).status === 503;
    expect(full).toBe(true);
    const down = await readyz(url);
    expect(down).toEqual({ status: 503, body: { ready: false, reasons: ['the log cannot be written (EFBIG)'] } });
    truncateSync(log, 0);
    await eventually(async () => (await readyz(url)).status === 200, 5_000, 'ready');
    expect((await post(url, task('T-ROOM'))).status).toBe(200);
  });

  it('goes 503 while the forward queue is full with nowhere to keep more, and back as it drains', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const app = createServer((req, res) => {
      req.resume();
      void held.then(() => res.end('{}'));
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    open.push({ close: () => new Promise((r) => app.close(r)) });
    const listener = await startListener({
      port: 0,
      keys: [KEY],
      store: logEvents(),
      forwardTo: `http://127.0.0.1:${(app.address() as AddressInfo).port}/`,
      forwardQueue: 2,
    });
    open.push(listener);
    expect((await post(listener.url, task('T-Q1'))).status).toBe(200);
    expect((await post(listener.url, task('T-Q2'))).status).toBe(200);
    expect(await readyz(listener.url)).toEqual({
      status: 503,
      body: { ready: false, reasons: ['the forward queue is full'] },
    });
    release();
    await eventually(async () => (await readyz(listener.url)).status === 200, 5_000, 'ready');
  });
});

describe('Prometheus metrics', () => {
  it('a scrape after a run shows every metric with the run’s counts, and no id, number or secret in a label', async () => {
    const forwarded: string[] = [];
    let failFirst = 1;
    const app = createServer((req, res) => {
      let b = '';
      req
        .on('data', (c: Buffer) => (b += c.toString()))
        .on('end', () => {
          if (failFirst-- > 0) return void res.writeHead(502).end('{}');
          forwarded.push(b);
          res.end('{}');
        });
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    open.push({ close: () => new Promise((r) => app.close(r)) });
    const log = EventLog.open(join(tempDir(), 'events.ndjson'));
    const listener: Listener = await startListener({
      port: 0,
      keys: [KEY],
      store: logEvents(log),
      forwardTo: `http://127.0.0.1:${(app.address() as AddressInfo).port}/`,
      metricsPath: '/metrics',
      metricsPort: 0,
    });
    open.push(listener);
    const url = listener.url;
    // 3 events (one sent twice), 1 bad signature, 1 not JSON, 1 wrong method, 1 key twice.
    for (const id of ['T-M1', 'T-M2', 'T-M3', 'T-M1']) expect((await post(url, task(id))).status).toBe(200);
    const callee = '+15551234567';
    expect((await post(url, JSON.stringify({ TaskID: callee, Sign: 'bad' }))).status).toBe(401);
    expect((await post(url, 'nope')).status).toBe(400);
    expect((await post(url, '{}', {}, 'PUT')).status).toBe(405);
    expect((await post(url, '{"a":1,"a":2}')).status).toBe(400);
    // Answered by the HTTP parser itself: bytes that are no request, headers over the cap.
    expect(await rawStatus(url, 'NOT HTTP AT ALL\r\n\r\n')).toBe(400);
    expect(await rawStatus(url, `POST / HTTP/1.1\r\nhost: x\r\nx-pad: ${'p'.repeat(20_000)}\r\n\r\n`)).toBe(431);
    await until(() => forwarded.length === 3, 10_000);

    const scraped = await post(`${url}/metrics`, '', {}, 'GET');
    expect(scraped.status).toBe(200);
    expect(scraped.headers['content-type']).toMatch(/^text\/plain/);
    const text = scraped.body;
    // The text exposition format, line by line (what promtool check metrics reads).
    for (const line of text.split('\n').filter(Boolean))
      expect(line).toMatch(
        /^# HELP callctl_hooks_\w+ \S.*$|^# TYPE callctl_hooks_\w+ (counter|gauge|histogram)$|^callctl_hooks_\w+(\{\w+="[^"\\\n]*"(,\w+="[^"\\\n]*")*\})? (-?\d+(\.\d+)?(e[+-]?\d+)?|\+Inf)$/,
      );
    const value = (line: string) => {
      const m = text.split('\n').find((l) => l.startsWith(`${line} `));
      return m === undefined ? undefined : Number(m.slice(line.length + 1));
    };
    // Every answer once, under its status: 10 requests, 10 answers.
    expect(answers(text)).toEqual({
      'type="task.end",verdict="verified",status="200"': 4,
      'type="task.end",verdict="rejected",status="401"': 1,
      'type="none",verdict="none",status="400"': 3,
      'type="none",verdict="none",status="405"': 1,
      'type="none",verdict="none",status="431"': 1,
    });
    expect(value('callctl_hooks_refused_total{reason="malformed"}')).toBe(1);
    expect(value('callctl_hooks_refused_total{reason="headers_too_large"}')).toBe(1);
    expect(value('callctl_hooks_retries_total{type="task.end"}')).toBe(1);
    expect(value('callctl_hooks_refused_total{reason="signature"}')).toBe(1);
    expect(value('callctl_hooks_refused_total{reason="not_json"}')).toBe(1);
    expect(value('callctl_hooks_refused_total{reason="method"}')).toBe(1);
    expect(value('callctl_hooks_refused_total{reason="duplicate_keys"}')).toBe(1);
    expect(value('callctl_hooks_forward_attempts_total{result="status"}')).toBe(1);
    expect(value('callctl_hooks_forward_attempts_total{result="ok"}')).toBe(3);
    expect(value('callctl_hooks_forward_failures_total')).toBe(0);
    expect(value('callctl_hooks_forward_repeats_total')).toBe(0);
    expect(value('callctl_hooks_forward_unrecorded_total')).toBe(0);
    expect(value('callctl_hooks_bodies_cut_short_total')).toBe(0);
    expect(value('callctl_hooks_forward_queue_depth')).toBe(0);
    expect(value('callctl_hooks_forward_deferred')).toBe(0);
    expect(value('callctl_hooks_forward_queue_oldest_seconds')).toBe(0);
    expect(value('callctl_hooks_ready')).toBe(1);
    // Every record written (7: the 4 events and 3 refused; the wrong method is recorded too) is timed.
    expect(value('callctl_hooks_write_seconds_count{to="log"}')).toBe(8);
    expect(text).not.toContain(callee);
    expect(text).not.toContain('T-M1');
    expect(text).not.toContain(KEY);
    // The same text on the metrics port.
    const own = await post(listener.metricsUrl!, '', {}, 'GET');
    expect(own.status).toBe(200);
    expect(own.body).toContain('callctl_hooks_ready 1');
  });
});
