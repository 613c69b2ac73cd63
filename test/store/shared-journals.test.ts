import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox } from '../../src/sandbox/server.js';
import { received as updatesReceived, tempDir as uploadDir, WORKFLOW, writeContacts } from '../upload/helpers.js';
import { cutSessionAfterPushes, runBuilt as run, useHosts } from '../helpers/hosts.js';
import { pushCsv, tempDir, writeIn } from '../reach/helpers.js';

const hosts = useHosts('journals');
const host = hosts.host;
let sandbox: Sandbox;
let store: string;
beforeEach(() => ({ sandbox, store } = hosts));

describe('journals in the PostgreSQL store: what one host finished, another does not send again', () => {
  it('workflow update: host B does not upload again a file host A finished (its journal is in the store)', async () => {
    const file = join(uploadDir(), 'contacts.csv');
    writeContacts(file, 60);
    const extra = {
      CALLCTL_TOKEN: sandbox.issueToken(),
      CALLCTL_APP_KEY: sandbox.appKey,
      CALLCTL_BASE_URL: sandbox.url,
    };
    const args = ['workflow', 'update', '--workflow-id', WORKFLOW, '--csv', file, '--batch-size', '10', '--yes'];
    const a = await run([...args, '--json'], host('a', extra));
    expect(a.code, a.err).toBe(0);
    expect(updatesReceived(sandbox)).toHaveLength(60);
    const b = await run(args, host('b', extra));
    expect(b.code, b.err).toBe(0);
    expect(updatesReceived(sandbox)).toHaveLength(60);
    expect(b.err).toMatch(/this file was already uploaded to this workflow \(60 entries, completed /);
    expect(b.out + b.err).not.toContain(new URL(store).password);
  }, 60_000);

  it('push --csv: host B, even with --call-again, does not send again the rows host A sent from the same file', async () => {
    const file = writeIn(tempDir(), 'callers.csv', pushCsv(5, 401));
    const extra = { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken };
    const args = ['push', '--csv', file, '--rate', '50', '--yes', '--json'];
    const a = await run(args, host('a', extra));
    expect(a.code, a.err).toBe(0);
    expect(JSON.parse(a.out)).toMatchObject({ sent: 5 });
    // --call-again sets the never-twice ledger aside; the journal still knows these rows went out.
    const b = await run([...args, '--call-again'], host('b', extra));
    expect(b.code, b.err).toBe(0);
    // Five sent in all (by host A), none by this run.
    expect(JSON.parse(b.out)).toMatchObject({ total: 5, sent: 5, thisRun: { sent: 0 } });
    expect(JSON.parse(b.out).journal).toMatch(/^journal reach push-\w+ in the store postgres:\/\/[^ ]*:\*\*\*@/);
    expect(sandbox.state.received.pushes).toHaveLength(5);
  }, 60_000);
  it("the journal's connection lost while sending: the run stops with exit 5 before the next row leaves, and a re-run on another host keeps the unanswered row uncertain", async () => {
    const file = writeIn(tempDir(), 'cut.csv', pushCsv(10, 501));
    const extra = { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken };
    const before = sandbox.state.received.pushes.length;
    // On the 3rd arrival the server ends the run's journal session.
    const { result: a, cut } = await cutSessionAfterPushes(hosts, 'callctl journal', 3, () =>
      run(['push', '--csv', file, '--rate', '10', '--yes', '--json'], host('a', extra)),
    );
    expect(a.code, a.err).toBe(5);
    expect(a.err).toMatch(/cannot write to the journal in the store postgres:\/\/[^ ]*:\*\*\*@/);
    expect(a.err).not.toContain(new URL(store).password);
    expect(cut).toBe(true);
    const k = sandbox.state.received.pushes.length - before;
    expect(k).toBeGreaterThanOrEqual(3);
    expect(k).toBeLessThan(10);
    // Host B: what went out is sent or uncertain, never again; the rest goes.
    const b = await run(['push', '--csv', file, '--rate', '50', '--yes', '--json'], host('b', extra));
    const summary = JSON.parse(b.out) as { thisRun: { sent: number }; uncertainRows: number[] };
    // What A did not send, B sends; what A sent (answered, or uncertain: its answer lost with the
    // connection) is never sent again.
    expect(summary.thisRun.sent, b.err).toBe(10 - k);
    expect(summary.uncertainRows.every((r) => r <= k)).toBe(true);
    const phones = sandbox.state.received.pushes.slice(before).map((p) => p.caller_id);
    expect(new Set(phones).size).toBe(phones.length);
  }, 60_000);
});
