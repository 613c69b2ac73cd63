import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox } from '../../src/sandbox/server.js';
import { received as updatesReceived, tempDir as uploadDir, WORKFLOW, writeContacts } from '../upload/helpers.js';
import { cutSessionAfterPushes, runBuilt as run, useHosts, type BuiltRun } from '../helpers/hosts.js';
import { pushCsv, tempDir, writeIn } from '../reach/helpers.js';

// Every request waits a little, so that each run lasts long enough for the other to meet it.
const hosts = useHosts('locks', { faults: { delayMs: 100 } });
const host = hosts.host;
let sandbox: Sandbox;
let store: string;
beforeEach(() => ({ sandbox, store } = hosts));

/**
 * Runs `body` with every request to `path` held `delayMs`: the run that takes the lock keeps it
 * long enough for the other to meet it, however far apart a loaded machine starts the two.
 */
async function slowOn<T>(path: string, delayMs: number, body: () => Promise<T>): Promise<T> {
  sandbox.setFaults({ path, delayMs });
  try {
    return await body();
  } finally {
    sandbox.setFaults({ path: null, delayMs: 100 });
  }
}

/** Exactly one of two runs sent; the other was refused with exit 2 naming the holder. */
function oneSentOneRefused(results: BuiltRun[], what: RegExp): void {
  const codes = results.map((r) => r.code).sort();
  expect(codes, results.map((r) => r.err).join('\n---\n')).toEqual([0, 2]);
  const loser = results.find((r) => r.code === 2)!;
  expect(loser.err).toMatch(what);
  expect(loser.err).toMatch(/\(pid \d+ on \S+, started [0-9T:.-]+Z; its lock is in the store postgres:\/\//);
  // The store's password is a secret of the run: never printed.
  expect(loser.err).not.toContain(new URL(store).password);
}

describe('two hosts, one PostgreSQL store: the same work is sent once', () => {
  it('push --csv of the same file from two hosts started together: one sends, the other refuses (exit 2), each row arrives once', async () => {
    const dir = tempDir();
    const file = writeIn(dir, 'callers.csv', pushCsv(20));
    const extra = { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken };
    const args = ['push', '--csv', file, '--rate', '20', '--yes', '--json'];
    const results = await Promise.all([run(args, host('a', extra)), run(args, host('b', extra))]);
    oneSentOneRefused(results, /another push run of this file is running/);
    const pushes = sandbox.state.received.pushes;
    expect(pushes).toHaveLength(20);
    expect(new Set(pushes.map((p) => p.caller_id)).size).toBe(20);
  }, 60_000);

  it('workflow update of the same file from two hosts started together: one uploads, the other refuses (exit 2), each entry arrives once', async () => {
    const dir = uploadDir();
    const file = join(dir, 'contacts.csv');
    writeContacts(file, 100);
    const extra = {
      CALLCTL_TOKEN: sandbox.issueToken(),
      CALLCTL_APP_KEY: sandbox.appKey,
      CALLCTL_BASE_URL: sandbox.url,
    };
    const args = [
      'workflow',
      'update',
      '--workflow-id',
      WORKFLOW,
      '--csv',
      file,
      '--batch-size',
      '25',
      '--yes',
      '--json',
    ];
    const results = await slowOn('/service/cloud/workflow/updatedetails', 750, () =>
      Promise.all([run(args, host('a', extra)), run(args, host('b', extra))]),
    );
    oneSentOneRefused(results, /another upload of .*contacts\.csv to workflow .* is running/);
    const entries = updatesReceived(sandbox);
    expect(entries).toHaveLength(100);
    expect(new Set(entries.map((e) => JSON.stringify(e))).size).toBe(100);
  }, 60_000);

  it('never twice across hosts: host A pushes to people, then host B (its own state folder, another file) the same people within the window: B skips them all', async () => {
    const dir = tempDir();
    const extra = { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken };
    const before = sandbox.state.received.pushes.length;
    const a = await run(
      ['push', '--csv', writeIn(dir, 'monday.csv', pushCsv(5, 101)), '--rate', '50', '--yes', '--json'],
      host('a', extra),
    );
    expect(a.code, a.err).toBe(0);
    expect(JSON.parse(a.out)).toMatchObject({ sent: 5, skipped: 0 });
    // The same five people and one more, in another file (other amounts), from another host.
    const other = pushCsv(6, 101)
      .split('\n')
      .map((l, i) => (i > 0 && l ? `${l}7` : l))
      .join('\n');
    // A dry run on another host names the five from the store's ledger, and sends nothing.
    const sentBefore = sandbox.state.received.pushes.length;
    const dry = await run(
      ['push', '--csv', writeIn(dir, 'tuesday.csv', other), '--dry-run', '--json'],
      host('b0', extra),
    );
    expect(dry.code, dry.err).toBe(0);
    expect(JSON.parse(dry.out).skipped.map((x: { who: string }) => x.who)).toEqual(
      ['101', '102', '103', '104', '105'].map((n) => `+628000000${n}`),
    );
    expect(JSON.parse(dry.out).requests).toHaveLength(1);
    expect(sandbox.state.received.pushes.length).toBe(sentBefore);
    const b = await run(
      ['push', '--csv', writeIn(dir, 'tuesday.csv', other), '--rate', '50', '--yes', '--json'],
      host('b', extra),
    );
    expect(b.code, b.err).toBe(0);
    expect(JSON.parse(b.out)).toMatchObject({ sent: 1, skipped: 5 });
    expect(b.err).toMatch(
      /\+628000000101: skipped: already reached through this destination at \S+ \(within --recall-window\)/,
    );
    const pushes = sandbox.state.received.pushes.slice(before);
    expect(pushes.map((p) => p.caller_id).sort()).toEqual(
      ['101', '102', '103', '104', '105', '106'].map((n) => `+628000000${n}`),
    );
    // --call-again on host B reaches them again, as with the ledger files.
    const again = await run(
      ['push', '--csv', writeIn(dir, 'tuesday.csv', other), '--rate', '50', '--yes', '--json', '--call-again'],
      host('b2', extra),
    );
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ sent: 6, skipped: 0 });
  }, 60_000);

  it('a run whose lease another run takes (as once it expired) stops before its next send: exit 5, told why, nobody reached twice', async () => {
    const dir = tempDir();
    const file = writeIn(dir, 'taken.csv', pushCsv(20, 601));
    const extra = { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken };
    const pushes = sandbox.state.received.pushes;
    const before = pushes.length;
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: store });
    await admin.connect();
    // On the 3rd arrival another run takes this run's lease of the file.
    let taken: Promise<number> | undefined;
    const onPush = () => {
      if (taken || pushes.length - before < 3) return;
      taken = admin
        .query(
          `UPDATE callctl_leases SET owner = 'another run', fence = nextval('callctl_lease_fence'), pid = 1,
             host = 'elsewhere', expires = now() + interval '1 hour' WHERE what = 'push run of this file'`,
        )
        .then(() => pushes.length - before);
    };
    sandbox.events.on('push.received', onPush);
    try {
      const r = await run(['push', '--csv', file, '--rate', '10', '--yes', '--json'], host('t', extra));
      expect(r.code, r.err).toBe(5);
      expect(r.err).toMatch(/the lock of this push run of this file in the store postgres:\/\/\S+ was lost/);
      expect(r.err).not.toContain(new URL(store).password);
      // Sent after the taking: at most the one request whose intent was written before it.
      const atTaking = await taken!;
      const sent = pushes.length - before;
      expect(sent).toBeLessThanOrEqual(atTaking + 1);
      expect(sent).toBeLessThan(20);
      expect(new Set(pushes.slice(before).map((p) => p.caller_id)).size).toBe(sent);
    } finally {
      sandbox.events.off('push.received', onPush);
      await admin.end();
    }
  }, 60_000);

  it('a store that cannot be reached: push --csv sends nothing and exits 5 (run again later), naming the store without its password', async () => {
    const dir = tempDir();
    const extra = { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken };
    const before = sandbox.state.received.pushes.length;
    const down = new URL(store);
    down.port = '1';
    const r = await run(['push', '--csv', writeIn(dir, 'c.csv', pushCsv(3, 201)), '--yes', '--json'], {
      ...host('c', extra),
      CALLCTL_STORE: down.toString(),
    });
    expect(r.code, r.err).toBe(5);
    // The journals are in the store too, and read first (what earlier runs of this file did).
    expect(r.err).toMatch(/cannot read the journal in the store postgres:\/\/[^ ]*:\*\*\*@127\.0\.0\.1:1\//);
    expect(r.err).not.toContain(down.password);
    expect(sandbox.state.received.pushes.length).toBe(before);
  }, 60_000);

  it("the ledger's connection lost while sending: the run stops with exit 5, the row whose ledger line failed is never sent, and a re-run keeps it uncertain", async () => {
    const dir = tempDir();
    const extra = { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken };
    const env = host('d', extra);
    const file = writeIn(dir, 'd.csv', pushCsv(12, 301));
    const before = sandbox.state.received.pushes.length;
    // On the 4th arrival the server ends the run's ledger session.
    const { result: r, cut } = await cutSessionAfterPushes(hosts, 'callctl ledger', 4, () =>
      run(['push', '--csv', file, '--rate', '10', '--yes', '--json'], env),
    );
    expect(r.code, r.err).toBe(5);
    expect(r.err).toMatch(/cannot write to the never-twice ledger in the store postgres:\/\//);
    expect(cut).toBe(true);
    // Rows 1..k went out (k is 4, or more when the session ended a little later than asked); row
    // k+1 was journaled as about to go, then its ledger line failed: it was never sent.
    const k = sandbox.state.received.pushes.length - before;
    expect(k).toBeGreaterThanOrEqual(4);
    expect(k).toBeLessThan(12);
    const again = await run(['push', '--csv', file, '--rate', '50', '--yes', '--json'], env);
    // The uncertain row: exit 5 with an error line naming it, as every uncertain outcome.
    expect(again.code, again.err).toBe(5);
    expect(again.err).toMatch(/error: 1 row may have reached people without an answer/);
    expect(JSON.parse(again.out)).toMatchObject({ total: 12, sent: 11, uncertain: 1, uncertainRows: [k + 1] });
    const callers = sandbox.state.received.pushes.slice(before).map((p) => p.caller_id);
    expect(callers).toHaveLength(11);
    expect(new Set(callers).size).toBe(11);
    expect(callers).not.toContain(`+628000000${300 + k + 1}`);
  }, 60_000);
});
