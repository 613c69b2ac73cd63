import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planSign } from '../../src/signing/sign.js';
import { EventLog } from '../../src/store/files/event-log.js';
import { PostgresEvents } from '../../src/store/postgres/events.js';
import { migratedDatabase } from '../helpers/postgres.js';
import { tcpProxy, viaProxy } from '../store/helpers.js';
import {
  post,
  readRecords,
  tempDir,
  until,
  logEvents,
  startListener,
  type Listener,
  type ListenerEvent,
} from './helpers.js';

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function listen(options: Partial<Parameters<typeof startListener>[0]> = {}) {
  const logPath = join(tempDir(), 'events.ndjson');
  const listener: Listener = await startListener({
    port: 0,
    keys: ['k'],
    store: logEvents(EventLog.open(logPath)),
    ...options,
  });
  open.push(listener);
  const events: ListenerEvent[] = [];
  listener.on((e) => events.push(e));
  return { listener, url: listener.url, logPath, events };
}

const errors = (events: ListenerEvent[]) => events.filter((e) => e.kind === 'error');

describe("hostile bodies are the sender's fault", () => {
  it('a plan end whose PlanDetails nest 5,000 deep: 400, recorded as refused, no internal error', async () => {
    const { url, events, logPath } = await listen();
    const deep = `{"PlanName":"P-deep","Timestamp":"1","Sign":"x","PlanDetails":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const a = await post(url, deep);
    expect(a.status).toBe(400);
    expect(JSON.parse(a.body)).toEqual({ error: 'body nests deeper than 64 levels' });
    // Nesting the service's own notifications use still passes.
    const ts = String(Math.floor(Date.now() / 1000));
    const shallow = `{"PlanName":"P-ok","Timestamp":"${ts}","Sign":"${planSign(ts, 'k')}","PlanDetails":${'['.repeat(20)}${']'.repeat(20)}}`;
    expect((await post(url, shallow)).status).toBe(200);
    expect(errors(events)).toEqual([]);
    expect(readRecords(logPath).map((r) => [r.status, r.error])).toEqual([
      [400, 'body nests deeper than 64 levels'],
      [200, undefined],
    ]);
  });

  it('a body holding a key twice (in any spelling of it) is refused 400, never forwarded', async () => {
    const { url, events } = await listen();
    for (const body of [
      '{"TaskID":"T-1","TaskID":"T-2","Sign":"x"}',
      '{"TaskID":"T-1","Task\\u0049D":"T-2"}',
      '{"a":{"b":1,"b":2}}',
      '[{"x":1},{"y":{"z":[{"q":1,"q":1}]}}]',
    ]) {
      const a = await post(url, body);
      expect(a.status, body).toBe(400);
      expect(JSON.parse(a.body)).toEqual({ error: 'an object holds the same key twice' });
    }
    // The same key in sibling objects, and keys that only look alike, are fine.
    for (const body of ['[{"x":1},{"x":2}]', '{"a":{"x":1},"b":{"x":1}}', '{"a":1,"A":2,"a ":3,"k":"\\"a\\":1"}'])
      expect((await post(url, body)).status, body).toBe(200);
    expect(errors(events)).toEqual([]);
  });

  it('bodies cut short by their sender are counted and told at most once a period, never an internal error', async () => {
    const { listener, url, events } = await listen();
    const { port } = new URL(url);
    const cutOne = () =>
      new Promise<void>((resolve) => {
        const s = connect(Number(port), '127.0.0.1', () => {
          s.write(
            'POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"TaskID":',
          );
          setTimeout(() => s.destroy(), 5);
        });
        s.on('close', () => resolve());
        s.on('error', () => resolve());
      });
    for (let round = 0; round < 10; round++) await Promise.all(Array.from({ length: 30 }, cutOne));
    await until(() => listener.stats().cutShort === 300);
    expect(errors(events)).toEqual([]);
    const told = events.filter((e) => e.kind === 'cut');
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ kind: 'cut', count: 1, total: 1 });
    // Still serving.
    expect((await post(url, '{"hello":"after"}')).status).toBe(200);
  });

  it('the 503 of a store that cannot be reached names no address; the operator is told the reason', async () => {
    const db = await migratedDatabase('hostile');
    const proxy = await tcpProxy([{ host: '127.0.0.1', port: Number(new URL(db).port) }]);
    open.push(proxy);
    const store = await PostgresEvents.open(viaProxy(db, proxy));
    const { url, events } = await listen({ store });
    open.push(store);
    expect((await post(url, '{"hello":"before"}')).status).toBe(200);
    await proxy.cut();
    const a = await post(url, '{"hello":"during"}');
    expect(a.status).toBe(503);
    expect(a.headers['retry-after']).toBe('5');
    expect(JSON.parse(a.body)).toEqual({ error: 'cannot record the event now: send it again later' });
    expect(a.body).not.toMatch(/127\.0\.0\.1|localhost|:\d{2,5}\b/);
    expect(
      errors(events)
        .map((e) => (e as { message: string }).message)
        .join('\n'),
    ).toMatch(/^cannot write to the store: /);
  });
});
