/**
 * The same as test/state/keyed.test.ts, with journals, ledgers and locks in the PostgreSQL store
 * that several hosts share (issue 21): records are keyed by destination there too.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { runBuilt as run, useHosts } from '../helpers/hosts.js';
import { tempDir } from '../helpers/temp.js';
import { received, WORKFLOW, writeContacts } from '../upload/helpers.js';

const hosts = useHosts('keyed');
const host = hosts.host;
let sandbox: Sandbox;
let other: Sandbox;
beforeAll(async () => {
  other = await startSandbox();
});
afterAll(() => other.close());
beforeEach(() => ({ sandbox } = hosts));

const cloud = (sb: Sandbox) => ({
  CALLCTL_BASE_URL: sb.url,
  CALLCTL_TOKEN: sb.issueToken(),
  CALLCTL_APP_KEY: sb.appKey,
});

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

  it("a person reached from host A by a single push is skipped by host B's CSV", async () => {
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
  }, 90_000);
});
