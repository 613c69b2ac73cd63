import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useUploadSandbox, WORKFLOW, writeContacts } from '../upload/helpers.js';

let env: Record<string, string>;
let dir: string;
useUploadSandbox((s) => ({ env, dir } = s));

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;

it('without a terminal every progress line starts with its time; --json is one line with start and end', async () => {
  const r = await runCli(
    [
      'workflow',
      'update',
      '--workflow-id',
      WORKFLOW,
      '--csv',
      writeContacts(join(dir, 'cron.csv'), 25),
      '--batch-size',
      '10',
      '--yes',
      '--json',
    ],
    { env },
  );
  expect(r.code, r.err).toBe(0);
  const lines = r.err.trimEnd().split('\n');
  expect(lines.length).toBeGreaterThanOrEqual(4);
  for (const line of lines) expect(line).toMatch(ISO);
  expect(r.err).toContain('batch 1/3 sent: lines 2-11, 10 entries accepted, service count 10');
  expect(r.err).toContain('batch 3/3 sent: lines 22-26, 5 entries accepted');
  expect(r.out.trimEnd().split('\n')).toHaveLength(1);
  const s = JSON.parse(r.out);
  expect(s).toMatchObject({
    status: 'done',
    rowsRead: 25,
    valid: 25,
    invalid: 0,
    sent: 25,
    serviceCount: 25,
    uncertain: [],
    rejects: null,
  });
  expect(Date.parse(s.endedAt)).toBeGreaterThanOrEqual(Date.parse(s.startedAt));
});

it('--quiet prints errors only; plural forms are right ("1 batch")', async () => {
  const quiet = await runCli(
    [
      'workflow',
      'update',
      '--workflow-id',
      WORKFLOW,
      '--csv',
      writeContacts(join(dir, 'quiet.csv'), 5),
      '--yes',
      '--quiet',
    ],
    { env },
  );
  expect(quiet.code).toBe(0);
  expect(quiet.err).toBe('');
  expect(quiet.out).toBe('');
  const again = await runCli(
    ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', join(dir, 'quiet.csv'), '--yes'],
    { env },
  );
  expect(again.err).toMatch(/this file was already uploaded to this workflow \(5 entries, completed /);
  const bad = await runCli(
    [
      'workflow',
      'update',
      '--workflow-id',
      'wf-nope',
      '--csv',
      writeContacts(join(dir, 'quiet2.csv'), 3),
      '--yes',
      '--quiet',
    ],
    { env },
  );
  expect(bad.code).toBe(1);
  expect(bad.err.trim().split('\n')).toHaveLength(1);
  // without a terminal the final error line starts with its time too
  expect(bad.err).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z error: batch 1 of 1 /);
});
