import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { entry, received, useUploadSandbox, WORKFLOW, writeContacts } from '../upload/helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';

// Issue 12 item 5: an envelope with status OK and code 200 is an accepted batch. The service's
// `count` is information (the spec does not say what it counts): shown per batch, summed beside
// the entries sent, a different number is a warning line, never a failure or a re-send.

let sandbox: Sandbox;
let env: Record<string, string>;
let dir: string;
useUploadSandbox((s) => ({ sandbox, env, dir } = s));

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /;
let state = 0;
beforeEach(() => void state++);
// each test its own state folder: the files of two tests have the same bytes, and an upload is known by its bytes
const update = (file: string, ...extra: string[]) =>
  runCli(['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--batch-size', '10', '--yes', ...extra], {
    env: { ...env, XDG_STATE_HOME: join(dir, `state-${state}`) },
  });
const updateRequests = () => sandbox.requests.filter((q) => q.path === '/service/cloud/workflow/updatedetails').length;

/** Uploads rows 1..10 (file one), then rows 1..25 (file two) in batches of 10 under `variant`. */
async function twoUploads(variant: string, name: string) {
  sandbox.setVariants([variant]);
  const first = await update(writeContacts(join(dir, `${name}-first.csv`), 10), '--json');
  expect(first.code, first.err).toBe(0);
  const before = updateRequests();
  const second = await update(writeContacts(join(dir, `${name}-second.csv`), 25), '--json');
  expect(second.code, second.err).toBe(0);
  // each entry once per upload: 10 + 25 received, in order, three requests for three batches (no re-send)
  const got = received(sandbox);
  expect(got).toHaveLength(35);
  expect(got.slice(10)).toEqual(Array.from({ length: 25 }, (_, i) => entry(i + 1)));
  expect(updateRequests() - before).toBe(3);
  expect(sandbox.state.received.updates.get(WORKFLOW)?.batches).toBe(4);
  for (const line of second.err.trimEnd().split('\n')) expect(line).toMatch(ISO);
  expect(second.err).not.toMatch(/error/i);
  return { first, second, summary: JSON.parse(second.out) };
}

describe('workflow update: the service count is information, not a verdict', () => {
  it('count-matched: batches of new contacts counted 0 are accepted, warned about, summed, and not sent again', async () => {
    const { first, second, summary } = await twoUploads('count-matched', 'matched');
    // the first upload: all 10 new, so the service counts 0 of 10: a warning, exit 0
    expect(JSON.parse(first.out)).toMatchObject({ status: 'done', sent: 10, serviceCount: 0 });
    expect(first.err).toMatch(
      /warning: batch 1 \(lines 2-11\): accepted; the service counted 0 entries of the 10 sent/,
    );
    // the second: rows 1-10 match (count 10 = sent, no warning), 11-25 are new (count 0)
    expect(summary).toMatchObject({
      status: 'done',
      rowsRead: 25,
      valid: 25,
      sent: 25,
      serviceCount: 10,
      uncertain: [],
    });
    expect(second.out.trimEnd().split('\n')).toHaveLength(1);
    expect(second.err).toContain('batch 1/3 sent: lines 2-11, 10 entries accepted, service count 10');
    expect(second.err).toContain('batch 2/3 sent: lines 12-21, 10 entries accepted, service count 0');
    expect(second.err).toContain('batch 3/3 sent: lines 22-26, 5 entries accepted, service count 0');
    expect(second.err).not.toMatch(/warning: batch 1 /);
    expect(second.err).toMatch(
      /warning: batch 2 \(lines 12-21\): accepted; the service counted 0 entries of the 10 sent \(what it counts is not said; nothing is sent again\)/,
    );
    expect(second.err).toMatch(
      /warning: batch 3 \(lines 22-26\): accepted; the service counted 0 entries of the 5 sent/,
    );
  });

  it('count-new: matched contacts counted 0 are accepted, warned about, summed, and not sent again', async () => {
    const { first, second, summary } = await twoUploads('count-new', 'new');
    expect(JSON.parse(first.out)).toMatchObject({ status: 'done', sent: 10, serviceCount: 10 });
    expect(first.err).not.toMatch(/warning/);
    expect(summary).toMatchObject({
      status: 'done',
      rowsRead: 25,
      valid: 25,
      sent: 25,
      serviceCount: 15,
      uncertain: [],
    });
    expect(second.err).toContain('batch 1/3 sent: lines 2-11, 10 entries accepted, service count 0');
    expect(second.err).toContain('batch 2/3 sent: lines 12-21, 10 entries accepted, service count 10');
    expect(second.err).toContain('batch 3/3 sent: lines 22-26, 5 entries accepted, service count 5');
    expect(second.err).toMatch(
      /warning: batch 1 \(lines 2-11\): accepted; the service counted 0 entries of the 10 sent/,
    );
    expect(second.err).not.toMatch(/warning: batch [23] /);
  });

  it('the human summary shows the service count beside the entries sent', async () => {
    sandbox.setVariants(['count-new']);
    await update(writeContacts(join(dir, 'human-first.csv'), 10));
    const r = await update(writeContacts(join(dir, 'human-second.csv'), 25));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/service count\s+15/);
    expect(received(sandbox)).toHaveLength(35);
  });
});
