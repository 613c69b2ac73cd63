// Start-up cost of callctl, as ratios to baselines measured in the same run, in a clean
// environment: `--help` and `--version` against a bare `node -e 0`, and `robots --json` against a
// bare node:http GET of the same endpoint printing the same data (what a read command cannot beat).
// NODE_EXTRA_CA_CERTS (set on these machines) makes every Node start read a CA file (~80 ms) and
// NODE_OPTIONS may preload anything: both are left out, for callctl and the baselines alike.
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
const clean = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'NODE_COMPILE_CACHE'].includes(k) && !k.startsWith('CALLCTL_'),
  ),
);
const env = {
  ...clean,
  CALLCTL_TOKEN: auth.data.token,
  CALLCTL_BASE_URL: sandbox.url,
  CALLCTL_CONFIG_DIR: '/nonexistent-callctl-bench',
};

// The floor of `robots --json`: one GET with node:http, the envelope's data printed as JSON.
const bareGet = `
const http = require('node:http');
http.get(process.env.CALLCTL_BASE_URL + '/service/cloud/robot', { headers: { authorization: 'Token ' + process.env.CALLCTL_TOKEN, accept: 'application/json' } }, (res) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (c) => (text += c));
  res.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(text).data, null, 2) + '\\n'));
});`;

const cases = {
  'node -e 0': [process.execPath, ['-e', '0']],
  'callctl --version': [process.execPath, [bin, '--version']],
  'callctl --help': [process.execPath, [bin, '--help']],
  'bare node:http GET': [process.execPath, ['-e', bareGet]],
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
// Each case against its baseline, with the goal of issue 15 where there is one.
const against = {
  'callctl --version': ['node -e 0'],
  'callctl --help': ['node -e 0', 1.2],
  'bare node:http GET': ['node -e 0'],
  'callctl robots --json': ['bare node:http GET', 2.0],
};
console.log(`start-up in a clean environment, median of ${runs} interleaved runs`);
for (const [name, xs] of Object.entries(samples)) {
  const m = median(xs);
  const [baseName, goal] = against[name] ?? [];
  const ratio = baseName ? m / median(samples[baseName]) : undefined;
  const vs = ratio === undefined ? '' : `  ${ratio.toFixed(2)}x ${baseName}`;
  const target = goal === undefined ? '' : `  goal <= ${goal}x ${ratio <= goal ? 'ok' : 'MISSED'}`;
  console.log(`${name.padEnd(24)} ${m.toFixed(1).padStart(7)} ms${vs}${target}`);
}
