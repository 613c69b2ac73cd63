/**
 * The same as test/state/keyed.test.ts, with journals, ledgers and locks in the PostgreSQL store
 * that several hosts share (issue 21): records are keyed by destination there too, and an earlier
 * callctl's records in the store stop a run until the user says what they were.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { uploadKey } from '../../src/store/upload-journal.js';
import { runBuilt as run, useHosts } from '../helpers/hosts.js';
import { tempDir } from '../helpers/temp.js';
import { templateMessage } from '../helpers/template-send.js';
import { received, WORKFLOW, writeContacts } from '../upload/helpers.js';

const hosts = useHosts('keyed');
const host = hosts.host;
let sandbox: Sandbox;
let store: string;
let other: Sandbox;
beforeAll(async () => {
  other = await startSandbox();
});
afterAll(() => other.close());
beforeEach(() => ({ sandbox, store } = hosts));

const cloud = (sb: Sandbox) => ({
  CALLCTL_BASE_URL: sb.url,
  CALLCTL_TOKEN: sb.issueToken(),
  CALLCTL_APP_KEY: sb.appKey,
});

/** Runs SQL on the store, as an earlier callctl would have left it. */
async function sql(text: string, args: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: store });
  await client.connect();
  try {
    await client.query(text, args);
  } finally {
    await client.end();
  }
}

describe('keyed by destination in the PostgreSQL store', () => {
  it('the same file to one workflow id on two services from two hosts: both get it once; re-runs send nothing', async () => {
    const file = writeContacts(join(tempDir(), 'contacts.csv'), 6);
    const args = ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--yes', '--json'];
    const before = received(other).length;
    expect((await run(args, host('a', cloud(sandbox)))).code).toBe(0);
    const b = await run(args, host('b', cloud(other)));
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(b.out)).toMatchObject({ entriesAcknowledged: 6, entriesResumed: 0 });
    // Each host again, to each service: the store knows both uploads.
    for (const [name, sb] of [
      ['c', sandbox],
      ['d', other],
    ] as const) {
      const again = await run(args, host(name, cloud(sb)));
      expect(again.code, again.err).toBe(0);
      expect(JSON.parse(again.out)).toMatchObject({ sent: 0, entriesResumed: 6 });
    }
    expect(received(sandbox)).toHaveLength(6);
    expect(received(other).length - before).toBe(6);
  }, 90_000);

  it("an earlier callctl's upload journal in the store stops the run (1); claimed, it is this destination's", async () => {
    const file = writeContacts(join(tempDir(), 'old.csv'), 4);
    const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
    const at = '2026-11-20T10:00:00.000Z';
    for (const record of [
      { type: 'start', version: 1, workflowId: WORKFLOW, file, sha256: sha, bytes: 1, at },
      { type: 'batch', index: 1, firstLine: 2, lastLine: 5, count: 4, acked: 4, at },
      { type: 'done', at },
    ])
      await sql('INSERT INTO callctl_journals (kind, name, record) VALUES ($1, $2, $3)', [
        'upload',
        uploadKey(WORKFLOW, sha),
        JSON.stringify(record),
      ]);
    const before = received(sandbox).length;
    const args = ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--yes', '--json'];
    const stopped = await run(args, host('e', cloud(sandbox)));
    expect(stopped.code).toBe(1);
    expect(stopped.err).toMatch(/journal upload [\w~.-]+ in the store postgres:\/\/[^ ]*:\*\*\*@/);
    expect(stopped.err).toMatch(/--claim-old-state/);
    const claimed = await run([...args, '--claim-old-state'], host('f', cloud(sandbox)));
    expect(claimed.code, claimed.err).toBe(0);
    expect(JSON.parse(claimed.out)).toMatchObject({ sent: 0, entriesResumed: 4 });
    expect(received(sandbox).length).toBe(before);
    // Listed by `callctl state`, from any host, with its destination now.
    const listed = JSON.parse((await run(['state', '--json'], host('g', {}))).out);
    expect(listed.uploads).toContainEqual(
      expect.objectContaining({ destination: `cloud ${sandbox.url} account ${sandbox.appKey}`, file, status: 'done' }),
    );
  }, 90_000);

  it("a person reached from host A by a single push is skipped by host B's CSV; an earlier callctl's ledger stops a send", async () => {
    const extra = { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken };
    const before = sandbox.state.received.pushes.length;
    const one = await run(['push', '--caller-id', '+62 812 3456 7801', '--yes'], host('h', extra));
    expect(one.code, one.err).toBe(0);
    const file = join(tempDir(), 'callers.csv');
    (await import('node:fs')).writeFileSync(file, 'caller_id\n006281234567801\n+6281234567802\n');
    const csv = await run(['push', '--csv', file, '--yes', '--json', '--rate', '100'], host('i', extra));
    expect(csv.code, csv.err).toBe(0);
    expect(JSON.parse(csv.out)).toMatchObject({ sent: 1, skipped: 1 });
    expect(sandbox.state.received.pushes.slice(before).map((p) => p.caller_id)).toEqual([
      '+62 812 3456 7801',
      '+6281234567802',
    ]);

    // The template endpoint's old ledger, people as written: a single send stops (1) until claimed.
    const endpoint = `POST ${sandbox.url}/api/v1/template/unitcast`;
    await sql('INSERT INTO callctl_reach_ledger (destination, person, state, at) VALUES ($1, $2, $3, now())', [
      `template ${endpoint} template 7`,
      'whatsapp:+62 812 3456 7803',
      'pending',
    ]);
    const env = {
      CALLCTL_BASE_URL: sandbox.url,
      CALLCTL_SIGN_KEY: sandbox.signKey,
      CALLCTL_SIGN_SECRET: sandbox.signSecret,
    };
    const send = ['template', 'send', ...templateMessage('+6281234567803'), '--yes', '--json'];
    const stopped = await run(send, host('j', env));
    expect(stopped.code).toBe(1);
    expect(stopped.err).toMatch(/never-twice ledger of template .* is still as an earlier callctl wrote it/);
    const templates = sandbox.state.received.templates.length;
    const claimed = await run([...send, '--claim-old-state'], host('k', env));
    expect(claimed.code, claimed.err).toBe(0);
    expect(JSON.parse(claimed.out)).toMatchObject({ skipped: true });
    expect(sandbox.state.received.templates.length).toBe(templates);
  }, 90_000);
});
