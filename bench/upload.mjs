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
  "import { writeFileSync } from 'node:fs'; process.on('exit', () => { if (process.env.BENCH_RSS_OUT) writeFileSync(process.env.BENCH_RSS_OUT, String(process.resourceUsage().maxRSS)); });",
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
  const rssMb = Number(readFileSync(rssFile, 'utf8')) / 1024;
  rmSync(rssFile, { force: true });
  return { seconds, rssMb, stdout, stderr };
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

const files = { [SMALL]: await generate(SMALL), [BIG]: await generate(BIG) };
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
    const cliRun = async (extra) => {
      const configDir = mkdtempSync(join(tmpdir(), 'callctl-bench-'));
      try {
        const r = await measure(
          [cli, 'workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--json', ...extra],
          {
            CALLCTL_CONFIG_DIR: configDir,
            // Journals (state) and spools (cache) of each run in its own folder: every run sends it all.
            XDG_STATE_HOME: configDir,
            XDG_CACHE_HOME: join(configDir, 'cache'),
            CALLCTL_BASE_URL: sandbox.url,
            CALLCTL_TOKEN: token,
            CALLCTL_APP_KEY: appKey,
          },
        );
        const summary = JSON.parse(r.stdout);
        if (summary.valid !== rows) throw new Error(`expected ${rows} valid rows, got ${summary.valid}`);
        return { ...r, summary };
      } finally {
        rmSync(configDir, { recursive: true, force: true });
      }
    };
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
