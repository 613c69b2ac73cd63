import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { migratedDatabase } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { eventually, exited, ROOT } from './helpers.js';

// Leases (src/store/postgres/lease.ts): rows in the store, taken, renewed and released by single
// statements, so that they hold through any pooler; a killed run's lease expires by itself.

let url: string;
let admin: pg.Client;
const children: ChildProcess[] = [];
beforeAll(async () => {
  url = await migratedDatabase('leases');
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(join(ROOT, 'node_modules', '.cache', 'callctl-test', `lease-holder-${process.pid}.mjs`), { force: true });
  await admin.end();
});

/** A run's store, with its own state folder, its leases lasting `ttlMs`; `lost` hears of one lost. */
function store(ttlMs = 30_000, lost: string[] = []) {
  return new PostgresStore({ url, dir: tempDir(), leaseTtlMs: ttlMs, onLockLost: (what, why) => lost.push(why) });
}

const lease = (name: string) => ({ name, what: 'push run of this file' });

async function row(name: string) {
  const r = await admin.query<{ owner: string; fence: string; pid: number; expires: Date }>(
    'SELECT owner, fence::text AS fence, pid, expires FROM callctl_leases WHERE name = $1',
    [name],
  );
  return r.rows[0];
}

/** Starts a child process that holds lease `name` (test/store/lease-holder.ts), once it says so. */
async function holder(name: string, ttlMs: number): Promise<ChildProcess> {
  // Beside the project's node_modules, where the bundle's packages (pg...) are found.
  const out = join(ROOT, 'node_modules', '.cache', 'callctl-test', `lease-holder-${process.pid}.mjs`);
  await build({
    entryPoints: [join(ROOT, 'test/store/lease-holder.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile: out,
    logLevel: 'silent',
  });
  const child = spawn(process.execPath, [out, url, tempDir(), name, String(ttlMs)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => c.toString().includes('held') && resolve());
    child.once('exit', (code) => reject(new Error(`the lease holder exited ${code}`)));
  });
  return child;
}

describe('leases in the PostgreSQL store', () => {
  it('two runs taking one lease at once: one holds it, the other is refused naming the holder', async () => {
    const [a, b] = [store(), store()];
    const results = await Promise.allSettled([a.lock(lease('two at once')), b.lock(lease('two at once'))]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lostOne = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lostOne).toHaveLength(1);
    const refusal = (lostOne[0] as PromiseRejectedResult).reason as UsageError;
    expect(refusal).toBeInstanceOf(UsageError);
    expect(refusal.message).toMatch(
      /^another push run of this file is running \(pid \d+ on \S+, started [0-9T:.-]+Z; its lock is in the store postgres:\/\/[^ ]*:\*\*\*@/,
    );
    await (won[0] as PromiseFulfilledResult<() => Promise<void>>).value();
    await Promise.all([a.close(), b.close()]);
  });

  it('a release leaves no row, and the lease is free for the next run at once', async () => {
    const a = store();
    const release = await a.lock(lease('released'));
    expect(await row('released')).toMatchObject({ pid: process.pid });
    await release();
    await release(); // safe twice
    expect(await row('released')).toBeUndefined();
    const b = store();
    await (
      await b.lock(lease('released'))
    )();
    await Promise.all([a.close(), b.close()]);
  });

  it('renewal keeps a lease past its TTL while the run lives', async () => {
    const a = store(1_500);
    const release = await a.lock(lease('renewed'));
    const first = await row('renewed');
    // Renewed (every third of the TTL): the expiry moves on, past the first one.
    await eventually(async () => (await row('renewed'))!.expires > first!.expires, 10_000, 'renewed');
    await eventually(async () => Date.now() > first!.expires.getTime() + 500, 10_000, 'past the first expiry');
    const contender = store();
    await expect(contender.lock(lease('renewed'))).rejects.toThrow(/another push run of this file is running/);
    await contender.close();
    expect((await row('renewed'))!.owner).toBe(first!.owner);
    await release();
    await a.close();
  });

  it('a run killed with SIGKILL: its lease stays (refused meanwhile), then expires by itself and the next run takes it with a higher fencing number', async () => {
    const child = await holder('killed', 2_000);
    const held = await row('killed');
    expect(held).toMatchObject({ pid: child.pid });
    const contender = store();
    await expect(contender.lock(lease('killed'))).rejects.toThrow(new RegExp(`\\(pid ${child.pid} on `));
    await contender.close();
    child.kill('SIGKILL');
    await exited(child);
    // Nothing released it: the row is still the dead run's.
    expect((await row('killed'))!.owner).toBe(held!.owner);
    const next = store();
    let release: (() => Promise<void>) | undefined;
    await eventually(
      async () => {
        release = await next.lock(lease('killed')).catch(() => undefined);
        return release !== undefined;
      },
      20_000,
      'taken after expiry',
    );
    const taken = await row('killed');
    expect(taken).toMatchObject({ pid: process.pid });
    expect(BigInt(taken!.fence)).toBeGreaterThan(BigInt(held!.fence));
    await release!();
    await next.close();
  });

  it('an answer still on its way when the run releases its lease at its end is written (only an intent is fenced)', async () => {
    const a = store();
    const release = await a.lock(lease('answer in flight'));
    const journal = (await a.journals('reach')).open('push-answer-in-flight', () => ({ t: 'begin' }));
    await journal.append({ t: 'about', row: 1 }, true);
    // The answer's insert waits behind a lock on the journals' table, as behind a busy pooler...
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE callctl_journals IN EXCLUSIVE MODE');
    await journal.append({ t: 'sent', row: 1 }, false);
    const waiting = "SELECT 1 FROM pg_locks WHERE relation = 'callctl_journals'::regclass AND NOT granted";
    await eventually(async () => (await admin.query(waiting)).rows.length > 0, 10_000, 'the answer waits');
    // ...while the run, done, releases its lease.
    await release();
    await blocker.query('COMMIT');
    await blocker.end();
    await journal.close();
    const journaled = await admin.query(
      "SELECT record FROM callctl_journals WHERE name = 'push-answer-in-flight' ORDER BY seq",
    );
    expect(journaled.rows.map((r) => JSON.parse(r.record as string).t)).toEqual(['begin', 'about', 'sent']);
    await a.close();
  });

  it('a lease taken over: the run is told, and its fenced writes (journal intent, ledger pending) fail', async () => {
    const lost: string[] = [];
    const a = store(1_500, lost);
    await a.lock(lease('taken over'));
    await a.lock({ name: 'ledger push live http://127.0.0.1:1', what: 'send to push live http://127.0.0.1:1' });
    const journal = (await a.journals('reach')).open('push-taken-over', () => ({ t: 'begin' }));
    await journal.append({ t: 'about', row: 1 }, true);
    const ledger = await (await a.ledgers()).open('push live http://127.0.0.1:1');
    await ledger.pending('+6281234567001', new Date().toISOString());
    // Another run takes the lease, as once it expired.
    await admin.query(
      "UPDATE callctl_leases SET owner = 'another run', fence = nextval('callctl_lease_fence'), pid = 1, host = 'elsewhere' WHERE name = 'taken over'",
    );
    await expect(journal.append({ t: 'about', row: 2 }, true)).rejects.toThrow(
      /the lock of this push run of this file in the store postgres:\/\/\S+ was lost/,
    );
    await expect(ledger.pending('+6281234567002', new Date().toISOString())).rejects.toThrow(/was lost/);
    // The renewal finds it taken: told once, naming who has it.
    await eventually(async () => lost.length > 0, 10_000, 'told');
    expect(lost).toEqual([expect.stringMatching(/^another run took it \(pid 1 on elsewhere, started /)]);
    // Nothing of row 2 or of the second person was written.
    const journaled = await admin.query("SELECT record FROM callctl_journals WHERE name = 'push-taken-over'");
    expect(journaled.rows.map((r) => JSON.parse(r.record as string).row)).toEqual([undefined, 1]);
    const ledgered = await admin.query('SELECT person FROM callctl_reach_ledger WHERE destination = $1', [
      'push live http://127.0.0.1:1',
    ]);
    expect(ledgered.rows.map((r) => r.person)).toEqual(['+6281234567001']);
    await Promise.resolve(journal.close()).catch(() => undefined);
    await ledger.close();
    await a.close();
  });
});
