#!/usr/bin/env node
// Benchmark of `callctl workflow update --csv` (run by `npm run bench:upload`, which builds dist/).
//
// Generates contact CSVs of 100,000 and 1,000,000 rows under bench/data/ (gitignored), starts the
// sandbox in a child process (`--no-keep-entries`: it counts what it accepts without keeping it),
// and measures, each in its own child process:
//   parse     csv-parse alone reading the file (a stream, `for await` over the records)
//   dry-run   callctl workflow update --dry-run (hash, read, check, plan)
//   upload    callctl workflow update --yes, the full upload to the sandbox
// It prints rows per second, each phase's ratio to csv-parse alone, and each CLI run's peak RSS.
// Targets: upload >= 0.6x the rows/s of csv-parse alone; peak RSS < 200 MB, and the 1,000,000-row
// RSS within 1.3x of the 100,000-row RSS.
//
// Usage: node bench/upload.mjs [--runs N] [--rows N]   (best of N runs per measurement, default 3)
//
// Comparing builds (a device on and off): node bench/upload.mjs --builds on=DIR,off=DIR [--runs N]
// runs the dry run and the upload of the large file with each build's bin/callctl.js (a checkout
// with its dist/ built), in turns, and prints each one's median and best wall time, CPU time and
// peak RSS, as ratios to the first build's.

import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'callctl.js');
const dataDir = join(root, 'bench', 'data');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const RUNS = arg('--runs', 3);
const builds = args.includes('--builds')
  ? args[args.indexOf('--builds') + 1].split(',').map((b) => {
      const [name, dir] = b.split('=');
      return { name, cli: join(dir, 'bin', 'callctl.js') };
    })
  : undefined;
const BIG = arg('--rows', 1_000_000);
const SMALL = Math.round(BIG / 10);
const WORKFLOW = 'wf-20001';

/** A contact CSV like a real export: quoted names with commas, some empty cells, some pds_variables. */
async function generate(rows) {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, `contacts-${rows}.csv`);
  if (existsSync(path)) return path;
  const out = createWriteStream(`${path}.tmp`);
  out.write('callee,platform,caseid,name,amount,due_date,note,pds_variables\n');
  let buf = '';
  for (let i = 1; i <= rows; i++) {
    const note = i % 3 === 0 ? '' : `note ${i}`;
    const pds = i % 50 === 0 ? `"{""tier"":${i % 5}}"` : '';
    buf += `+62812${String(i).padStart(8, '0')},shop-${i % 7},CASE-${i},"Name ${i}, Jr",${(i % 1000) + 0.5},2026-12-${String((i % 28) + 1).padStart(2, '0')},${note},${pds}\n`;
    if (buf.length > 1 << 16) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
  const { renameSync } = await import('node:fs');
  renameSync(`${path}.tmp`, path);
  return path;
}

// Preloaded into each measured child: writes its peak RSS (resourceUsage().maxRSS, KiB) on exit.
const probe = `data:text/javascript,${encodeURIComponent(
  "import { writeFileSync } from 'node:fs'; process.on('exit', () => { const u = process.resourceUsage(); if (process.env.BENCH_RSS_OUT) writeFileSync(process.env.BENCH_RSS_OUT, `${u.maxRSS} ${(u.userCPUTime + u.systemCPUTime) / 1e6}`); });",
)}`;

// csv-parse alone, as it is usually read: a stream and \`for await\` over its records (the target's baseline).
const parseAlone = `
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
let n = -1; // the header
for await (const _ of createReadStream(process.argv[1], { highWaterMark: 1 << 20 }).pipe(parse({ bom: true }))) n++;
process.stdout.write(String(n));
`;

// csv-parse alone read through 'data' events, as callctl reads it (about a quarter faster than
// \`for await\`, which costs a promise per record): shown for comparison.
const parseEvents = `
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
let n = -1;
const parser = parse({ bom: true });
parser.on('data', () => n++);
await pipeline(createReadStream(process.argv[1], { highWaterMark: 1 << 16 }), parser);
process.stdout.write(String(n));
`;

/** Runs a child; resolves with wall seconds, peak RSS (MB), stdout and stderr. */
async function measure(argv, env = {}) {
  const rssFile = join(tmpdir(), `callctl-bench-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', probe, ...argv], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1', BENCH_RSS_OUT: rssFile, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const [code] = await once(child, 'exit');
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code}:\n${stderr}`);
  const [rss, cpu] = readFileSync(rssFile, 'utf8').split(' ').map(Number);
  rmSync(rssFile, { force: true });
  return { seconds, rssMb: rss / 1024, cpuSeconds: cpu, stdout, stderr };
}

async function startSandbox() {
  const child = spawn(process.execPath, [cli, 'sandbox', '--json', '--no-keep-entries'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let text = '';
  for await (const chunk of child.stdout) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  const info = JSON.parse(text.slice(0, text.indexOf('\n')));
  return { child, url: info.url ?? info.baseUrl, info };
}

async function json(url, init) {
  const res = await fetch(url, init);
  return res.json();
}

async function best(label, fn) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await fn(i));
  const fastest = runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const peak = Math.max(...runs.map((r) => r.rssMb ?? 0));
  process.stderr.write(`  ${label}: ${runs.map((r) => r.seconds.toFixed(2)).join(' / ')} s\n`);
  return { ...fastest, rssMb: peak, all: runs.map((r) => r.seconds) };
}

const files = builds ? { [BIG]: await generate(BIG) } : { [SMALL]: await generate(SMALL), [BIG]: await generate(BIG) };
const sandbox = await startSandbox();
try {
  const auth = await json(`${sandbox.url}/service/cloud/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      APPKey: sandbox.info.appKey ?? 'demo-app-key',
      APPSecret: sandbox.info.appSecret ?? 'sbx-secret-4f9d2c7a1e8b6035',
    }),
  });
  const token = auth.data.token;
  // The account the upload's journal is kept for (its destination: base URL and APPKey).
  const appKey = sandbox.info.appKey ?? 'demo-app-key';
  if (builds) {
    await compareBuilds(sandbox.url, token, appKey);
    sandbox.child.kill('SIGTERM');
    process.exit(0);
  }
  const results = {};
  for (const rows of [SMALL, BIG]) {
    const file = files[rows];
    process.stderr.write(
      `${rows.toLocaleString('en-US')} rows (${(statSync(file).size / 1e6).toFixed(1)} MB), best of ${RUNS}:\n`,
    );
    const parse = await best('csv-parse alone', () => measure(['--input-type=module', '-e', parseAlone, file]));
    if (Number(parse.stdout) !== rows) throw new Error(`csv-parse read ${parse.stdout} rows, expected ${rows}`);
    const events = await best("csv-parse, 'data' events", () =>
      measure(['--input-type=module', '-e', parseEvents, file]),
    );
    const cliRun = (extra) => runUpdate(cli, file, rows, extra, sandbox.url, token, appKey);
    const dry = await best('--dry-run', () => cliRun(['--dry-run']));
    let accepted = 0;
    const upload = await best('upload', async () => {
      const before = (await json(`${sandbox.url}/__sandbox/state`)).data.counters.entriesAccepted;
      const r = await cliRun(['--yes']);
      accepted = (await json(`${sandbox.url}/__sandbox/state`)).data.counters.entriesAccepted - before;
      if (accepted !== rows || r.summary.entriesAcknowledged !== rows)
        throw new Error(`the sandbox accepted ${accepted} entries, expected ${rows}`);
      return r;
    });
    results[rows] = { parse, events, dry, upload };
  }

  const rate = (rows, r) => rows / r.seconds;
  const line = (cells) =>
    cells
      .map((c, i) =>
        String(c)
          .padStart(i === 0 ? 0 : 13)
          .padEnd(i === 0 ? 22 : 0),
      )
      .join('');
  console.log(
    `\ncallctl workflow update: ${BIG.toLocaleString('en-US')} and ${SMALL.toLocaleString('en-US')} rows, best of ${RUNS} (Node ${process.version})`,
  );
  console.log(line(['', 'rows', 'seconds', 'rows/s', 'x csv-parse', 'peak RSS MB']));
  for (const rows of [SMALL, BIG]) {
    const r = results[rows];
    const base = rate(rows, r.parse);
    for (const [name, m] of [
      ['csv-parse alone', r.parse],
      ["csv-parse 'data'", r.events],
      ['--dry-run', r.dry],
      ['upload (sandbox)', r.upload],
    ]) {
      console.log(
        line([
          name,
          rows.toLocaleString('en-US'),
          m.seconds.toFixed(2),
          Math.round(rate(rows, m)).toLocaleString('en-US'),
          (rate(rows, m) / base).toFixed(2),
          m.rssMb.toFixed(0),
        ]),
      );
    }
  }
  const big = results[BIG];
  const small = results[SMALL];
  const uploadRatio = rate(BIG, big.upload) / rate(BIG, big.parse);
  const dryRatio = rate(BIG, big.dry) / rate(BIG, big.parse);
  const peak = Math.max(big.upload.rssMb, big.dry.rssMb);
  const rssUpload = big.upload.rssMb / small.upload.rssMb;
  const rssDry = big.dry.rssMb / small.dry.rssMb;
  const verdict = (ok) => (ok ? 'ok' : 'MISSED');
  console.log('');
  console.log(
    `upload / csv-parse alone (rows/s):         ${uploadRatio.toFixed(2)}x   target >= 0.60x  ${verdict(uploadRatio >= 0.6)}`,
  );
  console.log(`dry-run / csv-parse alone (rows/s):        ${dryRatio.toFixed(2)}x`);
  console.log(
    `upload / csv-parse with 'data' events:     ${(rate(BIG, big.upload) / rate(BIG, big.events)).toFixed(2)}x`,
  );
  const sendSeconds = big.upload.seconds - big.dry.seconds;
  console.log(
    `upload minus dry-run (spool, send, sandbox): ${sendSeconds.toFixed(2)} s of ${big.upload.seconds.toFixed(2)} s`,
  );
  console.log(
    `peak RSS at ${BIG.toLocaleString('en-US')} rows:             ${peak.toFixed(0)} MB   target < 200 MB  ${verdict(peak < 200)}`,
  );
  console.log(
    `RSS ${BIG.toLocaleString('en-US')} / ${SMALL.toLocaleString('en-US')} rows, upload:    ${rssUpload.toFixed(2)}x   target <= 1.30x  ${verdict(rssUpload <= 1.3)}`,
  );
  console.log(
    `RSS ${BIG.toLocaleString('en-US')} / ${SMALL.toLocaleString('en-US')} rows, dry-run:   ${rssDry.toFixed(2)}x   target <= 1.30x  ${verdict(rssDry <= 1.3)}`,
  );
} finally {
  sandbox.child.kill('SIGTERM');
}

/** One `workflow update` of `file` by the build at `bin`, in a config and state folder of its own. */
async function runUpdate(bin, file, rows, extra, url, token, appKey) {
  const configDir = mkdtempSync(join(tmpdir(), 'callctl-bench-'));
  try {
    const r = await measure([bin, 'workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--json', ...extra], {
      CALLCTL_CONFIG_DIR: configDir,
      XDG_STATE_HOME: configDir,
      XDG_CACHE_HOME: join(configDir, 'cache'),
      CALLCTL_BASE_URL: url,
      CALLCTL_TOKEN: token,
      CALLCTL_APP_KEY: appKey,
    });
    const summary = JSON.parse(r.stdout);
    if (summary.valid !== rows) throw new Error(`expected ${rows} valid rows, got ${summary.valid}`);
    if (extra.includes('--yes') && summary.entriesAcknowledged !== rows)
      throw new Error(`${summary.entriesAcknowledged} entries acknowledged, expected ${rows}`);
    return { ...r, summary };
  } finally {
    rmSync(configDir, { recursive: true, force: true });
  }
}

/** --builds: each build's dry run and upload of the large file, in turns; ratios to the first build. */
async function compareBuilds(url, token, appKey) {
  const file = files[BIG];
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `\nworkflow update of ${BIG.toLocaleString('en-US')} rows, ${RUNS} runs of each build in turns (Node ${process.version}); ratio = first build's time / this build's`,
  );
  for (const [mode, extra] of [
    ['--dry-run', ['--dry-run']],
    ['upload', ['--yes']],
  ]) {
    const runs = new Map(builds.map((b) => [b.name, []]));
    for (let i = 0; i < RUNS; i++)
      for (const b of i % 2 === 0 ? builds : [...builds].reverse()) {
        const r = await runUpdate(b.cli, file, BIG, extra, url, token, appKey);
        process.stderr.write(
          `  ${mode} ${b.name}: ${r.seconds.toFixed(2)} s, CPU ${r.cpuSeconds.toFixed(2)} s, ${r.rssMb.toFixed(0)} MB\n`,
        );
        runs.get(b.name).push(r);
      }
    const figures = (rs) => ({
      wall: median(rs.map((r) => r.seconds)),
      best: Math.min(...rs.map((r) => r.seconds)),
      cpu: median(rs.map((r) => r.cpuSeconds)),
      rss: Math.max(...rs.map((r) => r.rssMb)),
    });
    const first = figures(runs.get(builds[0].name));
    for (const b of builds) {
      const f = figures(runs.get(b.name));
      console.log(
        `${mode.padEnd(10)}${b.name.padEnd(12)} wall median ${f.wall.toFixed(2)} s (${(first.wall / f.wall).toFixed(2)}x)  best ${f.best.toFixed(2)} s (${(first.best / f.best).toFixed(2)}x)  CPU ${f.cpu.toFixed(2)} s (${(first.cpu / f.cpu).toFixed(2)}x)  peak RSS ${f.rss.toFixed(0)} MB`,
      );
    }
  }
}
