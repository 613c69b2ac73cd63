import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLog } from '../../src/store/files/event-log.js';
import {
  readRecords,
  tempDir,
  until,
  logEvents,
  startListener,
  type Listener,
  type ListenerOptions,
} from './helpers.js';

const open: Array<{ close(): unknown }> = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const o of open.splice(0)) await o.close();
});

async function listen(options: Partial<ListenerOptions>) {
  const logPath = join(tempDir(), 'events.ndjson');
  const listener: Listener = await startListener({
    port: 0,
    keys: ['k'],
    store: logEvents(EventLog.open(logPath)),
    ...options,
  });
  open.push(listener);
  return { listener, port: Number(new URL(listener.url).port), logPath };
}

/** A raw connection that sends `text` and collects what comes back. */
function raw(port: number, text: string) {
  let got = '';
  const s = connect(port, '127.0.0.1', () => s.write(text));
  s.on('data', (c: Buffer) => (got += c.toString())).on('error', () => undefined);
  sockets.push(s);
  return { socket: s, got: () => got, closed: () => s.destroyed || s.readyState === 'closed' };
}

const request = (xff: string, body: string, length = Buffer.byteLength(body)) =>
  `POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-forwarded-for: ${xff}\r\ncontent-length: ${length}\r\n\r\n${body}`;

describe('--trust-proxy: per-peer limits see the peers behind a reverse proxy', () => {
  it("takes the peer from the proxy's X-Forwarded-For, caps it per peer, and does not cap the proxy's connections", async () => {
    const { listener, port, logPath } = await listen({ trustProxy: ['127.0.0.1'], maxConnectionsPerPeer: 2 });
    // Two requests of one peer under way (their bodies not all in); a third from it waits its turn: 429.
    const a = raw(port, request('10.9.8.7, 198.51.100.7', '{"a":', 10));
    const b = raw(port, request('198.51.100.7', '{"b":', 10));
    await new Promise((r) => setTimeout(r, 100));
    const c = raw(port, request('198.51.100.7', '{"c":1}'));
    await until(() => c.got().startsWith('HTTP/1.1 429'));
    // Another peer through the same proxy (a fourth connection from 127.0.0.1) is served.
    const d = raw(port, request('203.0.113.9', '{"d":1}'));
    await until(() => d.got().startsWith('HTTP/1.1 200'));
    a.socket.write('1}   ');
    b.socket.write('2}   ');
    await until(() => a.got().startsWith('HTTP/1.1 200') && b.got().startsWith('HTTP/1.1 200'));
    expect(listener.stats().connectionsRefused).toBe(0);
    const remotes = readRecords(logPath).map((r) => r.remote);
    expect(remotes.sort()).toEqual(['198.51.100.7', '198.51.100.7', '203.0.113.9']);
  });

  it('without it, X-Forwarded-For is not believed and the per-peer connection cap holds', async () => {
    const { listener, port, logPath } = await listen({ maxConnectionsPerPeer: 2 });
    const conns = [1, 2, 3].map(() => raw(port, ''));
    await until(() => listener.stats().connectionsRefused === 1);
    // The server counts the refusal before this side reads the close: wait for that too.
    await until(() => conns.some((c) => c.closed()));
    await new Promise((r) => setTimeout(r, 50));
    expect(conns.filter((c) => c.closed())).toHaveLength(1);
    const ok = conns.find((c) => !c.closed())!;
    ok.socket.write(request('198.51.100.7', '{"x":1}'));
    await until(() => ok.got().startsWith('HTTP/1.1 200'));
    expect(readRecords(logPath).map((r) => r.remote)).toEqual(['127.0.0.1']);
  });
});
