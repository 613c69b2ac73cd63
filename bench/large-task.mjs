#!/usr/bin/env node
// Benchmark of reports and exports of a large task (run by `npm run bench:large-task`, which
// builds dist/).
//
// A loopback server in this process answers GET /service/cloud/detail with a generated task of
// 100,000 call records (bench/large-task-data.mjs, about 96 MB of JSON), one of 10,000, and one of
// six records holding 2 MB of escaped text each (12 MB), and POST /service/cloud/workflow/taskdetail
// with a workflow call task of 100,000 calls. Each measurement is a child process, timed from spawn
// to exit (Node's start-up included for all):
//   floor        plain undici: request, body.text(), JSON.parse (the target's baseline)
//   report       callctl task report --json
//   export csv   callctl task detail --format csv --output FILE
//   export ndjson callctl task detail --format ndjson --output FILE
//   detail --json callctl task detail --json, into a pipe (streamed: src/api/stream.ts,
//                src/output/json-stream.ts)
//   floor wf     plain undici: the workflow task's POST, body.text(), JSON.parse
//   wf --json    callctl workflow task-detail --json, against floor wf
//   floor esc    plain undici: the task of six escaped records, body.text(), JSON.parse
//   esc --json   callctl task detail --json of that task, against floor esc (a reading whose cost
//                grows faster than the answer's size shows here)
// Each run measures the floors and then every case, and prints each case's ratio to that run's
// floor and its peak RSS. Targets: the --json cases <= 1.8x their floors, peak RSS <= 200 MB. Then
// memory against the number of records: each case's peak RSS for 10,000 records and, for the two
// --json cases of many records, for 1,000,000 (--huge; 0 skips it), each --json figure the median
// of as many runs: target within 1.3x of the 10,000 figure (memory does not grow with the records
// written out). A 1,000,000-record answer (about 800 MB) has no floor: JSON.parse cannot hold it (a
// string is at most 512 MB).
//
// Usage: node bench/large-task.mjs [--runs N] [--records N] [--huge N]
//        (default 3 runs, 100000 records, 1000000 for memory)

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { escapedTaskEnvelope, taskEnvelope, workflowTaskEnvelope } from './large-task-data.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'callctl.js');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const RUNS = arg('--runs', 3);
const BIG = arg('--records', 100_000);
const SMALL = 10_000;
const HUGE = arg('--huge', 1_000_000);

const bodies = {
  'T-LARGE': taskEnvelope(BIG, 'T-LARGE'),
  'T-SMALL': taskEnvelope(SMALL, 'T-SMALL'),
  'WT-LARGE': workflowTaskEnvelope(BIG, 'WT-LARGE'),
  'WT-SMALL': workflowTaskEnvelope(SMALL, 'WT-SMALL'),
  'T-ESCAPED': escapedTaskEnvelope(6, 2_000_000),
};
const server = createServer(async (req, res) => {
  let id = new URL(req.url, 'http://x').searchParams.get('TaskID');
  if (req.method === 'POST') {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    id = JSON.parse(Buffer.concat(chunks).toString()).task_id;
  } else req.resume();
  const body = bodies[id];
  if (!body) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ data: null, status: 'no such task', code: 404 }));
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${server.address().port}`;

// Preloaded into each measured child: writes its peak RSS (KiB) on exit. VmHWM, not
// resourceUsage().maxRSS: on Linux ru_maxrss survives fork and exec, so every child would report
// at least this process's RSS at spawn time (the generated bodies, over 100 MB).
const probe = `data:text/javascript,${encodeURIComponent(
  "import { readFileSync, writeFileSync } from 'node:fs'; process.on('exit', () => { if (!process.env.BENCH_RSS_OUT) return; let kb = process.resourceUsage().maxRSS; try { kb = Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]); } catch {} const u = process.resourceUsage(); writeFileSync(process.env.BENCH_RSS_OUT, JSON.stringify({ kb, cpu: (u.userCPUTime + u.systemCPUTime) / 1e6 })); });",
)}`;

// The floor: what reading the answer costs with nothing but undici and JSON.parse.
const floorScript = `
import { request } from 'undici';
const res = await request(process.argv[1]);
const data = JSON.parse(await res.body.text());
process.stdout.write(String(data.data.detail.length));
`;
const floorWorkflowScript = `
import { request } from 'undici';
const res = await request(process.argv[1], { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ task_id: process.argv[2] }) });
const data = JSON.parse(await res.body.text());
process.stdout.write(String(data.data.details.length));
`;

const work = mkdtempSync(join(tmpdir(), 'callctl-bench-large-'));
const env = { CALLCTL_BASE_URL: base, CALLCTL_TOKEN: 'bench-token', CALLCTL_CONFIG_DIR: work, NO_COLOR: '1' };

/** Runs a child; resolves with wall seconds, peak RSS (MB) and stdout's length. */
async function measure(argv, { input = 'module' } = {}) {
  const rssFile = join(work, `rss-${Math.random().toString(36).slice(2)}`);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    ['--import', probe, ...(input === 'eval' ? ['--input-type=module', '-e'] : []), ...argv],
    {
      cwd: root,
      env: { ...process.env, ...env, BENCH_RSS_OUT: rssFile },
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

const floors = {
  floor: (id) => measure([floorScript, `${base}/service/cloud/detail?TaskID=${id}`], { input: 'eval' }),
  'floor wf': (id) =>
    measure([floorWorkflowScript, `${base}/service/cloud/workflow/taskdetail`, `W${id}`], { input: 'eval' }),
  'floor esc': () => floors.floor('T-ESCAPED'),
};
// Each case: its label, what it runs for a task id, and the floor it is held to.
const cases = [
  ['report', (id) => measure([cli, 'task', 'report', id, '--json'])],
  ['export csv', (id) => measure([cli, 'task', 'detail', id, '--format', 'csv', '--output', join(work, `${id}.csv`)])],
  [
    'export ndjson',
    (id) => measure([cli, 'task', 'detail', id, '--format', 'ndjson', '--output', join(work, `${id}.ndjson`)]),
  ],
  ['detail --json', (id) => measure([cli, 'task', 'detail', id, '--json'])],
  ['wf --json', (id) => measure([cli, 'workflow', 'task-detail', `W${id}`, '--json']), 'floor wf'],
  ['esc --json', () => measure([cli, 'task', 'detail', 'T-ESCAPED', '--json']), 'floor esc'],
];
// The cases whose memory is measured against the number of records.
const sized = cases.filter(([label]) => label !== 'esc --json');
const jsonCases = sized.filter(([label]) => label.endsWith('--json'));

const mb = (n) => `${n.toFixed(0)} MB`;
const line = (label, r, f) =>
  `  ${label.padEnd(14)} ${r.seconds.toFixed(2)} s  ${(r.seconds / f.seconds).toFixed(2)}x  CPU ${r.cpu.toFixed(2)} s  ${(r.cpu / f.cpu).toFixed(2)}x  peak RSS ${mb(r.rssMb)}`;
process.stdout.write(
  `large task: ${BIG} records, ${(bodies['T-LARGE'].length / 1e6).toFixed(1)} MB of JSON (workflow task: ${(bodies['WT-LARGE'].length / 1e6).toFixed(1)} MB); ${RUNS} runs (Node ${process.version})\n`,
);
const ratios = Object.fromEntries(cases.map(([l]) => [l, []]));
const rss = Object.fromEntries(cases.map(([l]) => [l, []]));
const times = Object.fromEntries(cases.map(([l]) => [l, []]));
const floorRuns = Object.fromEntries(Object.keys(floors).map((l) => [l, []]));
const cpuRatios = Object.fromEntries(cases.map(([l]) => [l, []]));
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const range = (a) => `${Math.min(...a).toFixed(2)}x to ${Math.max(...a).toFixed(2)}x`;
try {
  for (let run = 1; run <= RUNS; run++) {
    process.stdout.write(`run ${run}\n`);
    const f = {};
    for (const [label, fn] of Object.entries(floors)) {
      f[label] = await fn('T-LARGE');
      floorRuns[label].push(f[label]);
      process.stdout.write(`${line(label, f[label], f[label])}\n`);
    }
    for (const [label, fn, floorLabel = 'floor'] of cases) {
      const r = await fn('T-LARGE');
      const fl = f[floorLabel];
      ratios[label].push(r.seconds / fl.seconds);
      times[label].push(r);
      cpuRatios[label].push(r.cpu / fl.cpu);
      rss[label].push(r.rssMb);
      process.stdout.write(`${line(label, r, fl)}\n`);
    }
  }
  const csvSize = statSync(join(work, 'T-LARGE.csv')).size;
  process.stdout.write(`  (the CSV export is ${(csvSize / 1e6).toFixed(1)} MB)\n`);
  // The machine may be shared: each measurement's best run against its floor's best run, as
  // bench/upload.mjs does, besides the median of the per-run ratios.
  // On a shared machine wall time swings with the load; CPU time (user + system) much less.
  process.stdout.write(
    'summary: best wall time against the best floor; median per-run ratio of wall and of CPU time, and its range (--json target <= 1.8x):\n',
  );
  for (const [label, runs] of Object.entries(floorRuns)) {
    process.stdout.write(
      `  ${label.padEnd(14)} ${Math.min(...runs.map((f) => f.seconds)).toFixed(2)} s  CPU ${median(runs.map((f) => f.cpu)).toFixed(2)} s\n`,
    );
  }
  for (const [label, , floorLabel = 'floor'] of cases) {
    const bestFloor = Math.min(...floorRuns[floorLabel].map((f) => f.seconds));
    const bestTime = Math.min(...times[label].map((r) => r.seconds));
    process.stdout.write(
      `  ${label.padEnd(14)} ${bestTime.toFixed(2)} s  best ${(bestTime / bestFloor).toFixed(2)}x  wall ${median(ratios[label]).toFixed(2)}x (${range(ratios[label])})  CPU ${median(cpuRatios[label]).toFixed(2)}x (${range(cpuRatios[label])})  peak RSS ${mb(Math.max(...rss[label]))}\n`,
    );
  }
  // Peak RSS moves by 10 MB or so from run to run (V8's heaps and the C library's arenas, one per
  // thread): the --json cases, whose ratio is the target, are measured RUNS times at each size
  // and held to the medians.
  process.stdout.write(`memory against the number of records (peak RSS):\n`);
  const small = {};
  for (const [label, fn] of sized) {
    const tries = jsonCases.some(([l]) => l === label) ? RUNS : 1;
    const runs = [];
    for (let i = 0; i < tries; i++) runs.push((await fn('T-SMALL')).rssMb);
    small[label] = median(runs);
    process.stdout.write(
      `  ${label.padEnd(14)} ${SMALL} records ${runs.map(mb).join(', ')}  ${BIG} records ${mb(Math.max(...rss[label]))}\n`,
    );
  }
  if (HUGE > 0) {
    process.stdout.write(`building a task and a workflow task of ${HUGE} records...\n`);
    bodies['T-HUGE'] = taskEnvelope(HUGE, 'T-HUGE');
    bodies['WT-HUGE'] = workflowTaskEnvelope(HUGE, 'WT-HUGE');
    for (const [label, fn] of jsonCases) {
      const runs = [];
      for (let i = 0; i < RUNS; i++) runs.push(await fn('T-HUGE'));
      const r = runs.at(-1);
      const peak = median(runs.map((x) => x.rssMb));
      process.stdout.write(
        `  ${label.padEnd(14)} ${HUGE} records ${runs.map((x) => mb(x.rssMb)).join(', ')} (${(r.out / 1e6).toFixed(0)} MB written in ${r.seconds.toFixed(1)} s): median ${(peak / small[label]).toFixed(2)}x the ${SMALL}-record median (target <= 1.3x)\n`,
      );
    }
  }
} finally {
  server.close();
  rmSync(work, { recursive: true, force: true });
}
