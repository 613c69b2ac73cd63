/**
 * Every network error through a proxy names the proxy (issue 36 item 3): its address without a
 * password and the variable that set it, apart from the service's address; a proxy that refuses
 * its credentials (407) is not transient: not retried, exit 4. `-v` says which proxy a request went
 * through. Real listeners: a dead proxy port, a proxy that answers 407 or 502 to every tunnel, and a
 * working CONNECT proxy that counts what passes through it; the sandbox is the service.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';
import { tempDir } from '../helpers/temp.js';

const fixture = useSandbox();

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on (taken, then let go). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** A proxy that answers every tunnel (CONNECT) with `status`; counts them. */
async function refusingProxy(status: 407 | 502): Promise<{ port: number; tunnels: () => number }> {
  let tunnels = 0;
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (_req, socket) => {
    tunnels++;
    const text = status === 407 ? 'Proxy Authentication Required' : 'Bad Gateway';
    const extra = status === 407 ? 'Proxy-Authenticate: Basic realm="corp"\r\n' : '';
    socket.end(`HTTP/1.1 ${status} ${text}\r\n${extra}Content-Length: 0\r\n\r\n`);
  });
  return { port: await listen(server), tunnels: () => tunnels };
}

/** A working CONNECT proxy; counts the tunnels it opened. */
async function workingProxy(): Promise<{ port: number; tunnels: () => number }> {
  let tunnels = 0;
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, socket, head) => {
    tunnels++;
    const [host, port] = req.url!.split(':');
    const upstream = connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  return { port: await listen(server), tunnels: () => tunnels };
}

const robots = (env: Record<string, string>, ...flags: string[]) =>
  runCli([...flags, '--timeout', '2', 'robots'], { env: { ...fixture.env, ...env } });

describe('errors through a proxy name the proxy and its variable', () => {
  it('a dead proxy: exit 5, naming the proxy (no password) and HTTP_PROXY apart from the service', async () => {
    const port = await deadPort();
    const r = await robots({ HTTP_PROXY: `http://alice:s3cr3t-pw@127.0.0.1:${port}` }, '-v');
    expect(r.code, r.err).toBe(5);
    const error = r.err.trim().split('\n').at(-1)!;
    expect(error).toBe(
      `error: GET /service/cloud/robot: connection refused at the proxy http://alice:***@127.0.0.1:${port} (from HTTP_PROXY; is it running, and is the address right?), on the way to ${fixture.sandbox.url} (the base URL, from CALLCTL_BASE_URL) after 4 attempts; this may pass by itself: run again later`,
    );
    // -v says which proxy each attempt went through; the password is never printed.
    expect(r.err).toContain(`* through the proxy http://alice:***@127.0.0.1:${port} (from HTTP_PROXY)`);
    expect(r.err).not.toContain('s3cr3t-pw');
    expect(fixture.sandbox.requests).toHaveLength(0);
  });

  it('an https address uses HTTPS_PROXY (or https_proxy), else HTTP_PROXY, as undici does, and names it', async () => {
    const port = await deadPort();
    const https = { CALLCTL_BASE_URL: 'https://127.0.0.1:9' };
    for (const [env, variable] of [
      [{ HTTPS_PROXY: `http://127.0.0.1:${port}`, HTTP_PROXY: 'http://127.0.0.1:1' }, 'HTTPS_PROXY'],
      [{ https_proxy: `http://127.0.0.1:${port}` }, 'https_proxy'],
      [{ HTTP_PROXY: `http://127.0.0.1:${port}` }, 'HTTP_PROXY'],
    ] as const) {
      const r = await robots({ ...https, ...env });
      expect(r.code, r.err).toBe(5);
      expect(r.err).toContain(
        `connection refused at the proxy http://127.0.0.1:${port} (from ${variable}; is it running, and is the address right?), on the way to https://127.0.0.1:9 (the base URL, from CALLCTL_BASE_URL)`,
      );
    }
  });

  it('a proxy that refuses its credentials (407): exit 4 at once, not retried, naming the proxy and the variable', async () => {
    const proxy = await refusingProxy(407);
    const r = await robots({
      HTTPS_PROXY: 'http://127.0.0.1:1',
      HTTP_PROXY: `http://bob:wrong@127.0.0.1:${proxy.port}`,
    });
    expect(r.code, r.err).toBe(4);
    expect(r.err.trim()).toBe(
      `error: GET /service/cloud/robot: the proxy http://bob:***@127.0.0.1:${proxy.port} (from HTTP_PROXY) refused the credentials it was given (HTTP 407, Proxy Authentication Required): check the user name and password in HTTP_PROXY; nothing was sent`,
    );
    expect(proxy.tunnels()).toBe(1);
    // Without credentials it says where they go. A push through it: exit 4, no call placed, none uncertain.
    const bareEnv: Record<string, string> = {
      ...fixture.env,
      CALLCTL_FLEX_URL: fixture.sandbox.flexUrl,
      CALLCTL_PUSH_TOKEN: fixture.sandbox.pushToken,
      XDG_STATE_HOME: tempDir(),
      HTTP_PROXY: `http://127.0.0.1:${proxy.port}`,
    };
    const bare = await runCli(['push', '--caller-id', '+6281234500014', '--yes'], { env: bareEnv });
    expect(bare.code, bare.err).toBe(4);
    expect(bare.err).toContain(
      `the proxy http://127.0.0.1:${proxy.port} (from HTTP_PROXY) refused to pass a request without credentials (HTTP 407, Proxy Authentication Required): put them in HTTP_PROXY, before its host: user:password@host:port; nothing was sent`,
    );
    expect(proxy.tunnels()).toBe(2);
    expect(fixture.sandbox.state.received.pushes).toHaveLength(0);
    // Nothing was sent, so the never-twice ledger and the CSV journal do not hold the person: without the proxy, both go.
    const file = join(tempDir(), 'callers.csv');
    writeFileSync(file, 'caller_id\n+6281234500015\n');
    const csv = await runCli(['push', '--csv', file, '--yes', '--rate', '1000'], { env: bareEnv });
    expect(csv.code, csv.err).toBe(4);
    const { HTTP_PROXY: _, ...direct } = bareEnv;
    expect((await runCli(['push', '--caller-id', '+6281234500014', '--yes'], { env: direct })).code).toBe(0);
    const again = await runCli(['push', '--csv', file, '--yes', '--rate', '1000', '--json'], { env: direct });
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ sent: 1 });
    expect(fixture.sandbox.state.received.pushes.map((p) => p.caller_id)).toEqual(['+6281234500014', '+6281234500015']);
  });

  it('a proxy that cannot reach the service (502 to the tunnel): exit 5 naming it, and a push was not placed', async () => {
    const proxy = await refusingProxy(502);
    const r = await robots({ HTTP_PROXY: `http://127.0.0.1:${proxy.port}` });
    expect(r.code, r.err).toBe(5);
    expect(r.err).toContain(
      `GET /service/cloud/robot: tunnel refused with HTTP 502 at the proxy http://127.0.0.1:${proxy.port} (from HTTP_PROXY; can the proxy reach the service, and may it?), on the way to ${fixture.sandbox.url} (the base URL, from CALLCTL_BASE_URL) after 4 attempts`,
    );
    const push = await runCli(['push', '--caller-id', '+6281234500014', '--yes', '--timeout', '2'], {
      env: {
        ...fixture.env,
        CALLCTL_FLEX_URL: fixture.sandbox.flexUrl,
        CALLCTL_PUSH_TOKEN: fixture.sandbox.pushToken,
        HTTP_PROXY: `http://127.0.0.1:${proxy.port}`,
      },
    });
    expect(push.code, push.err).toBe(5);
    expect(push.err).toContain('the call was not placed (caller_id +6281234500014)');
    expect(push.err).not.toContain('MAY HAVE BEEN PLACED');
  });

  it('a working proxy: requests pass through it (counted), -v names it; NO_PROXY goes direct and -v says why', async () => {
    const proxy = await workingProxy();
    const through = await robots({ HTTP_PROXY: `http://127.0.0.1:${proxy.port}` }, '-v');
    expect(through.code, through.err).toBe(0);
    expect(proxy.tunnels()).toBe(1);
    expect(fixture.sandbox.requests).toHaveLength(1);
    expect(through.err).toContain(`* through the proxy http://127.0.0.1:${proxy.port} (from HTTP_PROXY)`);
    const direct = await robots(
      { HTTP_PROXY: `http://127.0.0.1:${proxy.port}`, no_proxy: 'localhost,127.0.0.1' },
      '-v',
    );
    expect(direct.code, direct.err).toBe(0);
    expect(proxy.tunnels()).toBe(1);
    expect(fixture.sandbox.requests).toHaveLength(2);
    expect(direct.err).toContain('* direct, not through a proxy: 127.0.0.1 is in no_proxy');
    // Without proxies, -v has no such line.
    const plain = await robots({}, '-v');
    expect(plain.code).toBe(0);
    expect(plain.err).not.toMatch(/^\* (through|direct)/m);
  });
});
