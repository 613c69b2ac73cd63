// What the single executable costs against the npm package, side by side in one run: sizes (the
// tarball, the npm install's folder, the executable) and start-up (`--version`, `--help`,
// `robots --json` against the sandbox), the executable's time as a ratio to the npm install's.
// Both are built here from dist/ and the running node; start-up runs in a clean environment
// (as bench/startup.mjs: no NODE_EXTRA_CA_CERTS, NODE_OPTIONS or compile cache).
// Usage: npm run bench:release [-- --runs 15]
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildExecutable } from '../scripts/sea.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 15;
const work = mkdtempSync(join(tmpdir(), 'callctl-bench-release-'));
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const du = (dir) =>
  readdirSync(dir, { recursive: true }).reduce(
    (sum, f) => sum + (statSync(join(dir, f)).isFile() ? statSync(join(dir, f)).size : 0),
    0,
  );

try {
  // The npm package, installed as a user would (from npm's cache: no dependencies to fetch).
  await run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], { cwd: root });
  const tarball = join(
    work,
    readdirSync(work).find((f) => f.endsWith('.tgz')),
  );
  const prefix = join(work, 'global');
  const installStart = process.hrtime.bigint();
  await run('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', tarball]);
  const installMs = Number(process.hrtime.bigint() - installStart) / 1e6;
  const npmBin = join(prefix, 'bin', 'callctl');
  const executable = join(work, 'callctl');
  const buildStart = process.hrtime.bigint();
  await buildExecutable(executable);
  const buildMs = Number(process.hrtime.bigint() - buildStart) / 1e6;

  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'NODE_COMPILE_CACHE'].includes(k) && !k.startsWith('CALLCTL_'),
    ),
  );
  const { startSandbox } = await import('../dist/sandbox/server.js');
  const sandbox = await startSandbox({ port: 0 });
  const env = {
    ...clean,
    CALLCTL_BASE_URL: sandbox.url,
    CALLCTL_APP_KEY: sandbox.appKey,
    CALLCTL_APP_SECRET: sandbox.appSecret,
    CALLCTL_CONFIG_DIR: join(work, 'config'),
    XDG_STATE_HOME: join(work, 'state'),
    XDG_CACHE_HOME: join(work, 'cache'),
  };
  const commands = { '--version': ['--version'], '--help': ['--help'], 'robots --json': ['robots', '--json'] };
  const programs = { npm: npmBin, executable };
  // Wall time, and the CPU time (user + system) bash's `times` reports for its child: CPU time
  // moves less than wall time on a loaded machine.
  const seconds = (t) => {
    const [, m, s] = /(\d+)m([\d.]+)s/.exec(t);
    return Number(m) * 60 + Number(s);
  };
  const time = async (file, args) => {
    const start = process.hrtime.bigint();
    const { stdout } = await run('bash', ['-c', '"$0" "$@" >/dev/null; times', file, ...args], { env });
    const wall = Number(process.hrtime.bigint() - start) / 1e6;
    const [user, sys] = stdout.trim().split('\n').at(-1).split(/\s+/);
    return { wall, cpu: (seconds(user) + seconds(sys)) * 1000 };
  };
  const samples = {};
  for (const [name, args] of Object.entries(commands))
    for (const [kind, file] of Object.entries(programs)) {
      samples[`${kind} ${name}`] = [];
      await time(file, args); // warm the file cache (and, on Node 22+, the npm copy's compile cache)
    }
  for (let i = 0; i < runs; i++)
    for (const [name, args] of Object.entries(commands))
      for (const [kind, file] of Object.entries(programs)) samples[`${kind} ${name}`].push(await time(file, args));
  await sandbox.close();

  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`Node ${process.versions.node}; sizes, then start-up (median of ${runs} interleaved runs)`);
  console.log(`  npm tarball              ${mib(statSync(tarball).size)}`);
  console.log(
    `  npm install (folder)     ${mib(du(join(prefix, 'lib', 'node_modules', 'callctl')))}, installed in ${installMs.toFixed(0)} ms (from npm's cache)`,
  );
  console.log(
    `  executable               ${mib(statSync(executable).size)}  ${(statSync(executable).size / statSync(tarball).size).toFixed(0)}x the tarball (built in ${(buildMs / 1000).toFixed(1)} s)`,
  );
  for (const measure of ['wall', 'cpu']) {
    console.log(`  ${`${measure} time`.padEnd(16)} ${'npm install'.padStart(12)} ${'executable'.padStart(12)}  ratio`);
    for (const name of Object.keys(commands)) {
      const a = median(samples[`npm ${name}`].map((x) => x[measure]));
      const b = median(samples[`executable ${name}`].map((x) => x[measure]));
      console.log(
        `  ${name.padEnd(16)} ${`${a.toFixed(1)} ms`.padStart(12)} ${`${b.toFixed(1)} ms`.padStart(12)}  ${(b / a).toFixed(2)}x`,
      );
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
