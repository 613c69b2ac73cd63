import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { received, useUploadSandbox, WORKFLOW } from '../upload/helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';

let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
useUploadSandbox((s) => ({ sandbox, env, dir } = s));

/** One night's export: the same path every night, other people each night. */
function exportFor(night: number, rows: number): string {
  const path = join(dir, 'export.csv');
  const lines = ['callee,platform,name'];
  for (let i = 1; i <= rows; i++) lines.push(`+6287${night}${String(i).padStart(6, '0')},shop,Night ${night} row ${i}`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const nightly = (path: string) =>
  runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', path, '--batch-size', '10', '--yes', '--json'], {
    env: { ...env, CI: 'true' },
  });

it('the nightly cron: night 1 fails at batch 2, night 2 has a new export at the same path: it is uploaded, exit 0', async () => {
  sandbox.setFaults({ failBatch: { index: 2, mode: 'envelope', repeat: 'always' } });
  const night1 = await nightly(exportFor(1, 30));
  sandbox.setFaults({ failBatch: null });
  expect(night1.code).toBe(5);
  expect(night1.err).toContain('run the same command again');
  expect(received(sandbox).map((e) => e.callee)).toEqual(
    Array.from({ length: 10 }, (_, i) => `+62871${String(i + 1).padStart(6, '0')}`),
  );

  const night2 = await nightly(exportFor(2, 25));
  expect(night2.code, night2.err).toBe(0);
  const summary = JSON.parse(night2.out);
  expect(summary).toMatchObject({
    status: 'done',
    entriesAcknowledged: 25,
    earlierUpload: { batches: 1, entries: 10, line: 11 },
  });
  const got = received(sandbox).map((e) => e.callee);
  expect(got.slice(10)).toEqual(Array.from({ length: 25 }, (_, i) => `+62872${String(i + 1).padStart(6, '0')}`));
  expect(got).toHaveLength(35);

  // Night 3: the same export again (nothing new): nothing sent, exit 0.
  const night3 = await nightly(exportFor(2, 25));
  expect(night3.code).toBe(0);
  expect(received(sandbox)).toHaveLength(35);
});
