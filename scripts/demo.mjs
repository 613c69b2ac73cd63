// `npm run demo`: starts the embedded sandbox on a free loopback port and drives a campaign
// through it with the real CLI, each step printed as the command a person would type: auth,
// reads, a contact upload with a bad row caught and fixed, serve-hooks receiving the signed
// notifications the sandbox sends (a retry shown as one event), a push and a template send with
// their callbacks. It cleans up after itself and exits 0 when every step behaved as expected.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'callctl.js');
const { startSandbox, SEED } = await import('../dist/sandbox/server.js');

const work = mkdtempSync(join(tmpdir(), 'callctl-demo-'));
const HOOK_KEY = 'demo-hook-key';
const bold = (s) => (process.stdout.isTTY ? `\u001b[1m${s}\u001b[0m` : s);
const section = (title) => process.stdout.write(`\n${bold(`== ${title}`)}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let failures = 0;

// A load balancer in front of serve-hooks that loses the first answer: serve-hooks records the
// event and answers 200, the service sees a 502 and sends the same notification again.
let lost = 0;
const balancer = createServer((req, res) => {
  const upstream = request(`${hooksUrl}${req.url}`, { method: req.method, headers: req.headers }, (up) => {
    const chunks = [];
    up.on('data', (c) => chunks.push(c));
    up.on('end', () => {
      const loseThisOne = lost === 0 && req.headers['content-type']?.includes('json') && up.statusCode === 200;
      if (loseThisOne) lost++;
      res.writeHead(loseThisOne ? 502 : up.statusCode, { 'content-type': 'application/json' });
      res.end(loseThisOne ? '{"error":"bad gateway"}' : Buffer.concat(chunks));
    });
  });
  upstream.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
});
await new Promise((r) => balancer.listen(0, '127.0.0.1', r));
const balancerUrl = `http://127.0.0.1:${balancer.address().port}`;
const hooksPort = await freePort();
const hooksUrl = `http://127.0.0.1:${hooksPort}`;

const sandbox = await startSandbox({ port: 0, timeScale: 600, notifyUrl: `${balancerUrl}/hooks`, notifyKey: HOOK_KEY });
// Config, state (journals, ledgers, locks) and cache (spools) folders of this demo, removed with
// `work` at the end: the demo never reads or writes the user's own ~/.config/callctl,
// ~/.local/state/callctl or ~/.cache/callctl (an upload journal left there would make the user's
// own upload of the same file look done). Nothing of the user's own callctl settings (a pasted
// sandbox export line, a production token) reaches the demo's commands: only what is set here.
const env = {
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('CALLCTL_'))),
  CALLCTL_CONFIG_DIR: join(work, 'config'),
  XDG_STATE_HOME: join(work, 'state'),
  XDG_CACHE_HOME: join(work, 'cache'),
  CALLCTL_FLEX_URL: sandbox.flexUrl,
  CALLCTL_SIGN_KEY: sandbox.signKey,
  CALLCTL_SIGN_SECRET: sandbox.signSecret,
};
// On a terminal, the children render tables as they would for a person.
if (process.stdout.isTTY)
  Object.assign(env, { CALLCTL_FORCE_TTY: '1', COLUMNS: String(process.stdout.columns || 100) });

/** Runs the real CLI as a child process, echoing the command line and its output. */
function callctl(args, { input, expect = 0, show = args.join(' '), quiet = false } = {}) {
  process.stdout.write(`\n${bold(`$ callctl ${show}`)}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env, cwd: work, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (!quiet) process.stdout.write(d);
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

const HOOKS_ARGS = [
  'serve-hooks',
  '--port',
  String(hooksPort),
  '--key',
  HOOK_KEY,
  '--log',
  join(work, 'events.ndjson'),
];

/**
 * serve-hooks in the background, started before the tour: the sandbox's clock runs 600 times
 * fast, so its seeded tasks and plans end (and notify) whenever they are due, which on a slow
 * machine is before the tour reaches its notifications. Its lines are held until `show()`, then
 * shown as they arrive, prefixed.
 */
function startHooks() {
  // One human line per event, as support staff see it in a terminal.
  const hooksEnv = {
    ...env,
    CALLCTL_FORCE_TTY: '1',
    COLUMNS: env.COLUMNS ?? '120',
    ...(process.stdout.isTTY ? {} : { NO_COLOR: '1' }),
  };
  const child = spawn(process.execPath, [bin, ...HOOKS_ARGS], { env: hooksEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  let held = [];
  const take = (d) => {
    for (const line of String(d).split('\n').filter(Boolean)) {
      lines.push(line.replace(/\u001b\[[0-9;]*m/g, ''));
      if (held) held.push(line);
      else process.stdout.write(`  [serve-hooks] ${line}\n`);
    }
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  const show = () => {
    process.stdout.write(`\n${bold(`$ callctl ${HOOKS_ARGS.join(' ').replace(work, '$WORK')} &`)}\n`);
    for (const line of held) process.stdout.write(`  [serve-hooks] ${line}\n`);
    held = undefined;
  };
  return { child, lines, show };
}

async function waitFor(predicate, ms = 10_000) {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) return false;
    await sleep(50);
  }
  return true;
}

function check(ok, what) {
  if (!ok) {
    failures++;
    process.stdout.write(`!! ${what}\n`);
  }
}

let hooks;
try {
  hooks = startHooks();
  check(await waitFor(() => hooks.lines.some((l) => /listening/i.test(l))), 'serve-hooks did not start');
  section(`Sandbox running at ${sandbox.url} (its credentials are throwaway demo values)`);

  section('Log in: the secret comes on stdin, never as a flag; the token is stored in the profile');
  await callctl(['auth', 'login', '--base-url', sandbox.url, '--app-key', sandbox.appKey, '--app-secret-stdin'], {
    input: sandbox.appSecret,
    show: `auth login --base-url ${sandbox.url} --app-key ${sandbox.appKey} --app-secret-stdin < secret.txt`,
  });
  await callctl(['auth', 'status']);

  section('Robots, tasks and plans');
  await callctl(['robots']);
  await callctl(['task', 'detail', SEED.debtTaskId]);
  await callctl(['plan', 'status', SEED.callingPlanName]);
  await callctl(['plan', 'detail', SEED.planName]);
  await callctl(['task', 'detail', 'T-DOES-NOT-EXIST'], { expect: 1 });

  section('Workflows');
  await callctl(['workflow', 'list', '--size', '5']);
  const all = JSON.parse(
    await callctl(['workflow', 'list', '--all', '--json'], { quiet: true, show: 'workflow list --all --json' }),
  );
  process.stdout.write(`(${all.lists.length} workflows of ${all.count}, every page walked)\n`);
  await callctl(['workflow', 'task-detail', SEED.workflowTaskId]);
  await callctl([
    'workflow',
    'verify-push',
    '--workflow-id',
    SEED.verifyPush.workflowId,
    '--node-id',
    SEED.verifyPush.nodeId,
    '--callee',
    SEED.verifyPush.callee,
  ]);

  section('Contact upload: every row is checked first; a bad row is caught, set aside, fixed and sent');
  writeFileSync(join(work, 'contacts.csv'), readFileSync(join(root, 'fixtures', 'contacts', 'demo.csv')));
  const upload = ['workflow', 'update', '--workflow-id', SEED.workflowId];
  await callctl([...upload, '--csv', 'contacts.csv', '--yes'], { expect: 3 });
  await callctl([...upload, '--csv', 'contacts.csv', '--max-invalid', '1', '--rejects', 'rejects.csv', '--yes']);
  process.stdout.write(`\n${bold('$ cat rejects.csv')}\n${readFileSync(join(work, 'rejects.csv'), 'utf8')}`);
  writeFileSync(
    join(work, 'rejects.csv'),
    readFileSync(join(work, 'rejects.csv'), 'utf8').replaceAll('0812-3450-0005', '+6281234500005'),
  );
  process.stdout.write(`${bold("$ sed -i 's/0812-3450-0005/+6281234500005/' rejects.csv")}\n`);
  await callctl([...upload, '--csv', 'rejects.csv', '--yes']);
  const received = sandbox.state.received.updates.get(SEED.workflowId)?.count ?? 0;
  check(received === 8, `the sandbox holds ${received} contacts, not the file's 8`);
  process.stdout.write(
    `(the sandbox now holds ${received} uploaded contacts for ${SEED.workflowId}: every row of the file)\n`,
  );

  section('Notifications: serve-hooks verifies, records and shows what the sandbox sends');
  hooks.show();
  process.stdout.write(
    `(started before the tour, as the service's clock runs 600 times fast here; a flaky load balancer at ${balancerUrl}\n` +
      ` loses serve-hooks' first answer, so the service retries)\n`,
  );
  sandbox.simulate.finishTask(SEED.callingTaskId);
  check(
    await waitFor(() => hooks.lines.some((l) => l.includes(`task ${SEED.callingTaskId}`))),
    `no task.end of ${SEED.callingTaskId} arrived`,
  );
  check(
    await waitFor(() => hooks.lines.some((l) => /retry 1\b/.test(l))),
    'the notification whose answer was lost was not shown again as retry 1',
  );
  sandbox.simulate.finishPlan(SEED.callingPlanName);
  check(await waitFor(() => hooks.lines.some((l) => /plan\.end/.test(l))), 'no plan.end arrived');
  await callctl(['hooks', 'trigger', 'task.end', '--url', `${hooksUrl}/hooks`, '--key', 'wrong-key'], {
    expect: 1,
    show: `hooks trigger task.end --url ${hooksUrl}/hooks --key wrong-key`,
  });

  section('Reaching people: a push and a template message (status callbacks follow)');
  await callctl(
    [
      'push',
      '--caller-id',
      '+6281234567001',
      '--client-name',
      'Budi',
      '--var',
      'debt_amount=1500000',
      '--push-token-stdin',
      '--yes',
    ],
    {
      input: sandbox.pushToken,
      show: 'push --caller-id +6281234567001 --client-name Budi --var debt_amount=1500000 --push-token-stdin --yes < push-token.txt',
    },
  );
  await callctl([
    'template',
    'send',
    '--template-id',
    '7',
    '--channel',
    'whatsapp',
    '--channel-id',
    '+6281234567001',
    '--var',
    'date=2026-12-01',
    '--var',
    'name=Budi',
    '--reply-url',
    'https://example.com/replies',
    '--yes',
  ]);
  check(
    await waitFor(() => hooks.lines.some((l) => /template\.status.*\bread\b/.test(l))),
    'the template status callbacks did not arrive',
  );

  section('serve-hooks stops cleanly; its log holds every request it answered');
  hooks.child.kill('SIGTERM');
  const code = await new Promise((r) => hooks.child.on('close', r));
  check(code === 0, `serve-hooks exited ${code}`);
  const log = readFileSync(join(work, 'events.ndjson'), 'utf8').trim().split('\n');
  process.stdout.write(`(${log.length} requests recorded in events.ndjson)\n`);
} finally {
  hooks?.child.kill('SIGKILL');
  await sandbox.close();
  balancer.closeAllConnections();
  balancer.close();
  rmSync(work, { recursive: true, force: true });
}

process.stdout.write(
  `\n${failures === 0 ? 'demo finished: every step behaved as expected' : `demo: ${failures} step(s) did not behave as expected`}\n`,
);
process.exitCode = failures === 0 ? 0 : 1;

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
