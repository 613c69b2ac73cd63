// Start-up cost of callctl, as ratios to a bare `node -e 0` measured in the same run.
// Usage: npm run bench:startup [-- --runs 15]
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../bin/callctl.js', import.meta.url));
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 15;

const { startSandbox } = await import('../dist/sandbox/server.js');
const sandbox = await startSandbox({ port: 0 });
const auth = await fetch(`${sandbox.url}/service/cloud/auth`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ APPKey: sandbox.appKey, APPSecret: sandbox.appSecret }),
}).then((r) => r.json());
const env = { ...process.env, CALLCTL_TOKEN: auth.data.token, CALLCTL_BASE_URL: sandbox.url, CALLCTL_CONFIG_DIR: '/nonexistent-callctl-bench' };

const cases = {
  'node -e 0': [process.execPath, ['-e', '0']],
  'callctl --version': [process.execPath, [bin, '--version']],
  'callctl --help': [process.execPath, [bin, '--help']],
  'callctl robots --json': [process.execPath, [bin, 'robots', '--json']],
};

async function time([file, args]) {
  const start = process.hrtime.bigint();
  await run(file, args, { env });
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const c of Object.values(cases)) await time(c); // warm the file cache and the compile cache
for (let i = 0; i < runs; i++) {
  // Interleaved, so that a noisy moment hits every case alike.
  for (const [name, c] of Object.entries(cases)) samples[name].push(await time(c));
}
await sandbox.close();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(samples['node -e 0']);
const targets = { 'callctl --help': 1.3, 'callctl robots --json': 3 };
console.log(`start-up, median of ${runs} interleaved runs (ratio to node -e 0)`);
for (const [name, xs] of Object.entries(samples)) {
  const m = median(xs);
  const target = targets[name] ? `  target <= ${targets[name]}x ${m / base <= targets[name] ? 'ok' : 'MISSED'}` : '';
  console.log(`${name.padEnd(24)} ${m.toFixed(1).padStart(7)} ms  ${(m / base).toFixed(2)}x${target}`);
}
