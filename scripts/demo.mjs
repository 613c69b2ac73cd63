// `npm run demo`: starts the embedded sandbox on a free loopback port and drives a campaign
// through it with the real CLI, each step printed as the command a person would type.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/callctl.js', import.meta.url));
const { startSandbox, SEED } = await import('../dist/sandbox/server.js');

const work = mkdtempSync(join(tmpdir(), 'callctl-demo-'));
const sandbox = await startSandbox({ port: 0, timeScale: 600 });
const env = { ...process.env, CALLCTL_CONFIG_DIR: join(work, 'config') };
// On a terminal, the children render tables as they would for a person.
if (process.stdout.isTTY) env.CALLCTL_FORCE_TTY = String(process.stdout.columns || 100);
delete env.CALLCTL_TOKEN;
delete env.CALLCTL_PROFILE;

const bold = (s) => (process.stdout.isTTY ? `\u001b[1m${s}\u001b[0m` : s);
let failures = 0;

/** Runs the real CLI as a child process, echoing the command line and its output. */
function callctl(args, { input, expect = 0, show = args.join(' ') } = {}) {
  process.stdout.write(`\n${bold(`$ callctl ${show}`)}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => process.stdout.write(d));
    child.stdin.end(input ?? '');
    child.on('close', (code) => {
      if (code !== expect) {
        failures++;
        process.stdout.write(`!! expected exit ${expect}, got ${code}\n`);
      } else if (expect !== 0) process.stdout.write(`(exit ${code}, as expected)\n`);
      resolve(out);
    });
  });
}

const section = (title) => process.stdout.write(`\n${bold(`== ${title}`)}\n`);

try {
  section(`Sandbox running at ${sandbox.url} (credentials are throwaway demo values)`);
  section('Log in: the secret comes on stdin, never as a flag; the token is stored in the profile');
  await callctl(['auth', 'login', '--base-url', sandbox.url, '--app-key', sandbox.appKey, '--app-secret-stdin'], {
    input: sandbox.appSecret,
    show: `auth login --base-url ${sandbox.url} --app-key ${sandbox.appKey} --app-secret-stdin < secret.txt`,
  });
  await callctl(['auth', 'status']);

  section('Robots, tasks and plans');
  await callctl(['robots']);
  await callctl(['task', 'detail', SEED.debtTaskId]);
  await callctl(['plan', 'status', SEED.planName]);
  await callctl(['plan', 'detail', SEED.planName]);
  await callctl(['task', 'detail', 'T-DOES-NOT-EXIST'], { expect: 1 });

  section('Workflows');
  await callctl(['workflow', 'list', '--size', '5']);
  await callctl(['workflow', 'list', '--all', '--json'], { show: 'workflow list --all --json | (count only)' }).then(() => undefined);
  await callctl(['workflow', 'task-detail', SEED.workflowTaskId]);
  await callctl(['workflow', 'verify-push', '--workflow-id', SEED.verifyPush.workflowId, '--node-id', SEED.verifyPush.nodeId, '--callee', SEED.verifyPush.callee]);
} finally {
  await sandbox.close();
  rmSync(work, { recursive: true, force: true });
}

process.stdout.write(`\n${failures === 0 ? 'demo finished: every step behaved as expected' : `demo: ${failures} step(s) did not behave as expected`}\n`);
process.exitCode = failures === 0 ? 0 : 1;
