import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { entry, received, useUploadSandbox, WORKFLOW, writeContacts } from '../upload/helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';

// The child runs the built CLI (bin/callctl.js loads dist/): `npm test` builds first.
const root = join(import.meta.dirname, '..', '..');

/** dist/ is a bundle: it must be newer than the sources this test is about. */
function checkBuilt(): void {
  const built = join(root, 'dist', 'main.js');
  const sources = [
    ...readdirSync(join(root, 'src/upload')).map((f) => join(root, 'src/upload', f)),
    join(root, 'src/commands/workflow/update.ts'),
    join(root, 'src/commands/workflow/update-render.ts'),
  ];
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  if (!existsSync(built) || statSync(built).mtimeMs < newest)
    throw new Error('dist/ is missing or older than src/upload: run `npm run build` first');
}

let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;

beforeAll(() => checkBuilt());
useUploadSandbox((s) => ({ sandbox, env, dir } = s));

const ROWS = 200_000;
const BATCH = 10_000;

it("a second run of the same upload while the first is sending refuses, naming the first one's pid", async () => {
  const file = writeContacts(join(dir, 'twice.csv'), 30);
  // Slow enough that the second run (started in-process, on a loaded machine) finds the first still sending.
  sandbox.setFaults({ path: '/service/cloud/workflow/updatedetails', delayMs: 1500 });
  const child = spawn(
    process.execPath,
    [
      join(root, 'bin/callctl.js'),
      'workflow',
      'update',
      '--workflow-id',
      WORKFLOW,
      '--csv',
      file,
      '--batch-size',
      '10',
      '--yes',
    ],
    {
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: 'ignore',
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    // The child is sending once the sandbox has its first request.
    await new Promise<void>((resolve) => sandbox.events.once('request', () => resolve()));
    const second = await runCli(
      ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--batch-size', '10', '--yes'],
      { env },
    );
    expect(second.code, second.err).toBe(2);
    expect(second.err).toContain(
      `another upload of ${file} to workflow ${WORKFLOW} is running (pid ${child.pid}, started `,
    );
  } finally {
    sandbox.resetFaults();
  }
  expect(await exited).toBe(0);
  sandbox.state.received.updates.clear();
});

it('a run killed with SIGKILL mid-upload: the re-run finishes, every row arrives, only the batch in flight is sent twice', async () => {
  sandbox.state.received.updates.clear();
  const file = writeContacts(join(dir, 'kill.csv'), ROWS);
  const child = spawn(
    process.execPath,
    [join(root, 'bin/callctl.js'), 'workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--yes'],
    {
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  // Kill while the 5th batch is being accepted: the service has it, the client has no answer yet.
  const onUpdate = (e: { batch: number }) => {
    if (e.batch === 5) child.kill('SIGKILL');
  };
  sandbox.events.on('workflow.updated', onUpdate);
  const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  sandbox.events.off('workflow.updated', onUpdate);
  expect(exit, stderr).toEqual({ code: null, signal: 'SIGKILL' });
  const before = received(sandbox).length;
  expect(before).toBeGreaterThanOrEqual(4 * BATCH);
  expect(before).toBeLessThan(ROWS);

  const again = await runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--yes', '--json'], {
    env,
  });
  expect(again.code, again.err).toBe(0);
  expect(again.err).toMatch(new RegExp(`took over the lock of an earlier run that is gone \\(pid ${child.pid}\\)`));
  const summary = JSON.parse(again.out);
  expect(summary.batchesResumed + summary.batchesSent).toBe(ROWS / BATCH);

  // What arrived: the first run's batches, then the re-run's, which start at a batch boundary at
  // most one batch before where the first run stopped.
  const got = received(sandbox);
  const resent = got.length - ROWS;
  expect(resent === 0 || resent === BATCH).toBe(true);
  const firstRun = before;
  const restartAt = firstRun - resent;
  expect(restartAt % BATCH).toBe(0);
  expect(restartAt).toBe(summary.entriesResumed);
  const expected = (i: number) => JSON.stringify(entry(i + 1));
  for (let i = 0; i < firstRun; i++) if (JSON.stringify(got[i]) !== expected(i)) expect(got[i]).toEqual(entry(i + 1));
  for (let i = restartAt; i < ROWS; i++) {
    const at = firstRun + (i - restartAt);
    if (JSON.stringify(got[at]) !== expected(i)) expect(got[at]).toEqual(entry(i + 1));
  }
  // The journal: every batch once, in order, then done.
  const journal = readFileSync(summary.journal, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const batches = journal.filter((j) => j.type === 'batch').map((j) => j.index);
  expect(batches).toEqual(Array.from({ length: ROWS / BATCH }, (_, i) => i + 1));
  expect(journal.at(-1).type).toBe('done');
  // No spool or lock is left behind.
  expect(readdirSync(join(env.XDG_STATE_HOME!, 'callctl', 'uploads')).filter((f) => !f.endsWith('.journal'))).toEqual(
    [],
  );
  expect(readdirSync(join(env.XDG_CACHE_HOME!, 'callctl', 'spool'))).toEqual([]);
});
