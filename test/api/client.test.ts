import { execFile } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';

const servers: Server[] = [];
async function serve(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A fake service answering every request with one JSON body. */
function fixed(body: unknown, status = 200) {
  const seen: Array<{ method?: string; url?: string; headers: Record<string, unknown> }> = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers });
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  return { server, seen };
}

const robot = { RobotMethod: 'single', RobotID: 'r-1', RobotName: 'A', Voice: 'female', Tone: 'Polite' };

describe('cloud client against a listener', () => {
  it('sends the Token header and User-Agent, and lets unknown fields through', async () => {
    const { server, seen } = fixed({ data: [{ ...robot, NewField: 'kept' }], status: 'OK', code: 200, extra: 1 });
    const url = await serve(server);
    const res = await runCli(['robots', '--json'], {
      env: { CALLCTL_BASE_URL: url, CALLCTL_TOKEN: 'tok-123456', CALLCTL_CONFIG_DIR: tempConfigDir() },
    });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.out)[0].NewField).toBe('kept');
    expect(seen[0]!.headers.authorization).toBe('Token tok-123456');
    expect(seen[0]!.headers['user-agent']).toMatch(/^callctl\/\d+\.\d+\.\d+$/);
  });

  it('one odd record is left out with a warning naming its path; the others are shown', async () => {
    const { server } = fixed({
      data: [robot, { ...robot, RobotID: 7 }, { ...robot, RobotID: 'r-3' }],
      status: 'OK',
      code: 200,
    });
    const url = await serve(server);
    const res = await runCli(['robots'], {
      env: { CALLCTL_BASE_URL: url, CALLCTL_TOKEN: 'tok-123456', CALLCTL_CONFIG_DIR: tempConfigDir() },
    });
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain('r-1');
    expect(res.out).toContain('r-3');
    expect(res.err).toMatch(/warning: GET \/service\/cloud\/robot: data\.1\.RobotID: .*left out/);
  });

  it('a missing field outside any list is an error naming its path', async () => {
    const { server } = fixed({ data: { PlanName: 'P' }, status: 'OK', code: 200 });
    const url = await serve(server);
    const res = await runCli(['plan', 'status', 'P'], {
      env: { CALLCTL_BASE_URL: url, CALLCTL_TOKEN: 'tok-123456', CALLCTL_CONFIG_DIR: tempConfigDir() },
    });
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/unexpected answer: data\.PlanStatus: /);
  });

  it('an answer that is not JSON is a service error, not a crash', async () => {
    const { server } = fixed('<html>bad gateway</html>', 200);
    const url = await serve(server);
    const res = await runCli(['robots'], {
      env: { CALLCTL_BASE_URL: url, CALLCTL_TOKEN: 'tok-123456', CALLCTL_CONFIG_DIR: tempConfigDir() },
    });
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/not JSON/);
  });

  it('a proxy that refuses every tunnel ends in --timeout, exit 5, not a busy loop for ever', async () => {
    // undici reconnects to such a proxy in a loop and does not heed the abort signal
    // (nodejs/undici#3897): the built CLI, so that a hang is a killed child, not a stuck test.
    let refused = 0;
    const proxy = createServer((_req, res) => res.destroy());
    proxy.on('connect', (_req, socket) => {
      refused++;
      socket.destroy();
    });
    const proxyUrl = await serve(proxy);
    const bin = fileURLToPath(new URL('../../bin/callctl.js', import.meta.url));
    const env = {
      ...process.env,
      CALLCTL_BASE_URL: 'http://127.0.0.1:9',
      CALLCTL_TOKEN: 'tok-123456',
      CALLCTL_CONFIG_DIR: tempConfigDir(),
      HTTP_PROXY: proxyUrl,
    };
    const started = Date.now();
    const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [bin, '--timeout', '0.5', 'plan', 'status', 'P'],
        { env, timeout: 30_000 },
        (_error, _out, err) => resolve({ code: child.exitCode, err }),
      );
    });
    expect(r.code, r.err).toBe(5);
    expect(r.err).toMatch(/GET \/service\/cloud\/planstatus: .*timed out/);
    // Each attempt ends with its timeout: four attempts and their back-off, not 30 s.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(refused).toBeGreaterThan(0);
  }, 40_000);

  it('goes through HTTP_PROXY, and NO_PROXY bypasses it', async () => {
    const { server: service, seen } = fixed({ data: [robot], status: 'OK', code: 200 });
    const serviceUrl = await serve(service);
    const tunnels: string[] = [];
    const proxy = createServer((req, res) => {
      // A plain forward proxy for absolute-URI requests.
      tunnels.push(`GET ${req.url}`);
      const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode!, up.headers);
        up.pipe(res);
      });
      req.pipe(upstream);
    });
    proxy.on('connect', (req, socket, head) => {
      tunnels.push(`CONNECT ${req.url}`);
      const [host, port] = req.url!.split(':');
      const upstream = connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
    });
    const proxyUrl = await serve(proxy);
    const env = { CALLCTL_BASE_URL: serviceUrl, CALLCTL_TOKEN: 'tok-123456', CALLCTL_CONFIG_DIR: tempConfigDir() };
    const viaProxy = await runCli(['robots'], { env: { ...env, HTTP_PROXY: proxyUrl } });
    expect(viaProxy.code).toBe(0);
    expect(tunnels.length).toBe(1);
    expect(seen.length).toBe(1);
    const bypass = await runCli(['robots'], { env: { ...env, HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' } });
    expect(bypass.code).toBe(0);
    expect(tunnels.length).toBe(1);
    expect(seen.length).toBe(2);
  });
});
