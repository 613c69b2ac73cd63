import { statSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/store/files/event-log.js';
import { taskSign } from '../../src/signing/sign.js';
import {
  post,
  readRecords,
  tempDir,
  until,
  logEvents,
  startListener,
  type Listener,
  type ListenerEvent,
  type ListenerOptions,
} from './helpers.js';

const KEY = 'bounds-key';
const task = (id: string) => JSON.stringify({ TaskID: id, TaskName: 'bounds', Sign: taskSign(id, KEY) });
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function listen(options: Partial<ListenerOptions> = {}, withLog = true) {
  const logPath = join(tempDir(), 'events.ndjson');
  const log = withLog ? EventLog.open(logPath) : undefined;
  const listener: Listener = await startListener({ port: 0, keys: [KEY], store: logEvents(log), ...options });
  const events: ListenerEvent[] = [];
  listener.on((e) => events.push(e));
  cleanup.push(async () => {
    await listener.close();
    await log?.close();
  });
  return { listener, url: listener.url, logPath, events };
}

/** An app that holds every request until `release()`, counting how many it holds at once. */
async function slowApp() {
  const got: string[] = [];
  const held: Array<() => void> = [];
  let open = 0;
  let most = 0;
  let released = false;
  const server = createServer((req, res) => {
    let body = '';
    req
      .on('data', (c: Buffer) => (body += c.toString()))
      .on('end', () => {
        open += 1;
        most = Math.max(most, open);
        const answer = () => {
          open -= 1;
          got.push((JSON.parse(body) as { TaskID: string }).TaskID);
          res.end('{}');
        };
        if (released) answer();
        else held.push(answer);
      });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => server.close(r)));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/app`,
    got,
    most: () => most,
    held: () => held.length,
    release() {
      released = true;
      held.splice(0).forEach((f) => f());
    },
  };
}

describe('bounds: refused requests', () => {
  it('records metadata and 256 bytes of a refused body, within --refused-log-rate, and counts the rest', async () => {
    const { url, logPath, listener, events } = await listen({ refusedLogRate: 5 });
    const junk = Buffer.alloc(1024 * 1024, 0x61); // 1 MiB that is not JSON
    for (let i = 0; i < 50; i++) expect((await post(url, junk)).status).toBe(400);
    const records = readRecords(logPath);
    expect(records.length).toBeGreaterThan(0);
    expect(records.length).toBeLessThan(50);
    expect(records.every((r) => r.bytes === junk.length && r.truncated === true && (r.body ?? '').length === 256)).toBe(
      true,
    );
    expect(statSync(logPath).size).toBeLessThan(64 * 1024); // was 66 MiB
    const stats = listener.stats();
    expect(stats.refused).toBe(50);
    expect(stats.refusedUnlogged).toBe(50 - records.length);
    expect(events.some((e) => e.kind === 'unlogged')).toBe(true);
    expect(JSON.parse((await post(`${url}/healthz`, '', {}, 'GET')).body)).toMatchObject({
      ok: true,
      refused: 50,
      refusedUnlogged: 50 - records.length,
    });
    // An accepted event is never held back by the limit, and keeps its whole body.
    expect((await post(url, task('T-AFTER-JUNK'))).status).toBe(200);
    expect(readRecords(logPath).at(-1)).toMatchObject({ status: 200, bytes: task('T-AFTER-JUNK').length });
    expect(readRecords(logPath).at(-1)!.truncated).toBeUndefined();
  });
});

describe('bounds: forward queue', () => {
  it('holds at most --forward-queue forwards; the rest wait in the log and go later, each once (read back from the log)', async () => {
    const app = await slowApp();
    const { url, logPath, listener } = await listen({ forwardTo: app.url, forwardQueue: 4 });
    const ids = Array.from({ length: 30 }, (_, i) => `T-Q-${String(i).padStart(2, '0')}`);
    for (const id of ids) expect((await post(url, task(id))).status).toBe(200);
    await until(() => app.held() === 4);
    // Every one is acknowledged and in the log; 4 are under way, 26 wait there.
    expect(readRecords(logPath)).toHaveLength(30);
    expect(listener.stats()).toMatchObject({ forwardQueue: 4, forwardDeferred: 26 });
    app.release();
    await until(() => app.got.length === 30, 10_000);
    expect(app.most()).toBeLessThanOrEqual(4);
    expect([...app.got].sort()).toEqual(ids);
  });

  it('without --log, an event past the queue is answered 503 (not acknowledged: the service sends it again)', async () => {
    const app = await slowApp();
    const { url } = await listen({ forwardTo: app.url, forwardQueue: 2 }, false);
    expect((await post(url, task('T-N-1'))).status).toBe(200);
    expect((await post(url, task('T-N-2'))).status).toBe(200);
    const past = await post(url, task('T-N-3'));
    expect(past.status).toBe(503);
    expect(past.body).toMatch(/forward queue full/);
    app.release();
    await until(() => app.got.length === 2);
    // The service's retry, once there is room, is a new event and goes on.
    expect((await post(url, task('T-N-3'))).status).toBe(200);
    await until(() => app.got.length === 3);
    expect(app.got).toEqual(['T-N-1', 'T-N-2', 'T-N-3']);
  });
});

describe('bounds: connections', () => {
  it('closes connections past --max-connections-per-peer at once, keeping room for another peer (the service)', async () => {
    const { url, listener } = await listen({ maxConnectionsPerPeer: 8, maxConnections: 32 });
    const { port } = new URL(url);
    const sockets: Socket[] = [];
    const closed: boolean[] = [];
    for (let i = 0; i < 12; i++) {
      const s = connect({ port: Number(port), host: '127.0.0.1' });
      const n = i;
      closed[n] = false;
      s.on('close', () => (closed[n] = true));
      s.on('error', () => undefined);
      s.write('POST / HTTP/1.1\r\nhost: x\r\n'); // half-open: headers never finished
      sockets.push(s);
    }
    cleanup.push(() => sockets.forEach((s) => s.destroy()));
    await until(() => closed.filter(Boolean).length >= 4);
    await new Promise((r) => setTimeout(r, 100));
    expect(closed.filter(Boolean).length).toBe(4);
    // Another address (the service) still gets in.
    const answer = await new Promise<string>((resolve, reject) => {
      const body = task('T-FROM-SERVICE');
      const s = connect({ port: Number(port), host: '127.0.0.1', localAddress: '127.0.0.2' }, () =>
        s.write(
          `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
        ),
      );
      let text = '';
      s.on('data', (c: Buffer) => (text += c.toString()));
      s.on('close', () => resolve(text));
      s.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1.1 200 /);
    expect(listener.stats().connectionsRefused).toBe(4);
  });
});
