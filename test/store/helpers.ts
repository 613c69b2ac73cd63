import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../hooks/helpers.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const KEY = 'store-test-key';

/** A signed task.end body (TaskID + KEY), as the service sends it. */
export function taskEnd(taskId: string): string {
  return JSON.stringify({
    TaskID: taskId,
    TaskName: 'store test',
    Sign: createHash('md5')
      .update(taskId + KEY)
      .digest('hex'),
  });
}

export interface Proxy {
  port: number;
  /** Connections accepted, per backend index. */
  counts: number[];
  /** Stops listening and cuts every open connection (the backend "goes away"). */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy on loopback handing each new connection to the next backend in turn (a
 * round-robin load balancer), or to the only one. A backend that refuses gets the client's
 * connection closed, as a load balancer with no health check would.
 */
export async function tcpProxy(backends: Array<{ host: string; port: number }>): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const counts = backends.map(() => 0);
  let next = 0;
  const onConnection = (client: Socket) => {
    const i = next++ % backends.length;
    counts[i]! += 1;
    const upstream = connect(backends[i]!.port, backends[i]!.host);
    sockets.add(client);
    sockets.add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  };
  let server: Server = createServer(onConnection);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const stop = async () => {
    await new Promise<void>((r) => {
      server.close(() => r());
      for (const s of sockets) s.destroy();
      sockets.clear();
    });
  };
  return {
    port,
    counts,
    cut: stop,
    async restore() {
      server = createServer(onConnection);
      await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    },
    close: stop,
  };
}

/** The URL with its host and port swapped for a proxy's. */
export function viaProxy(url: string, proxy: Proxy): string {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  u.port = String(proxy.port);
  return u.toString();
}

export interface Receiver {
  child: ChildProcess;
  url: string;
  port: number;
  stderr: () => string;
}

/** Starts the built `callctl serve-hooks` with the store in CALLCTL_STORE (never a flag). */
export function serveHooks(store: string, args: string[] = []): Promise<Receiver> {
  const child = spawn(process.execPath, ['bin/callctl.js', 'serve-hooks', '--port', '0', '--key', KEY, ...args], {
    cwd: ROOT,
    env: { ...process.env, CALLCTL_CONFIG_DIR: tempDir('callctl-cfg-'), CALLCTL_STORE: store },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /listening on (http:\/\/[\d.]+:(\d+))/.exec(err);
      if (m) resolve({ child, url: m[1]!, port: Number(m[2]), stderr: () => err });
    });
    child.on('exit', (code) => reject(new Error(`serve-hooks exited with ${code}: ${err}`)));
  });
}

/** Runs `body` with a receiver (serveHooks) on `store`, stopped after it. */
export async function withReceiver<T>(store: string, body: (r: Receiver) => Promise<T>): Promise<T> {
  const receiver = await serveHooks(store);
  try {
    return await body(receiver);
  } finally {
    receiver.child.kill('SIGTERM');
    await exited(receiver.child);
  }
}

export function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.on('exit', () => resolve());
  });
}

/** POSTs one body on a new connection (so a round-robin proxy spreads requests); resolves with the status, or 0 on a network error. */
export function postOnce(port: number, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.setTimeout(10_000, () => req.destroy());
    req.end(body);
  });
}

/** An app behind the receivers: counts each forwarded TaskID. */
export async function forwardTarget(): Promise<{ url: string; got: Map<string, number>; close: () => Promise<void> }> {
  const got = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = (JSON.parse(Buffer.concat(chunks).toString()) as { TaskID: string }).TaskID;
      got.set(id, (got.get(id) ?? 0) + 1);
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    got,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** Polls an async condition until it holds (or fails after `ms`). */
export async function eventually(
  cond: () => Promise<boolean> | boolean,
  ms = 10_000,
  what = 'condition',
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
