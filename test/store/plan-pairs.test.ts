import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEvents } from '../../src/store/postgres/events.js';
import { planSign } from '../../src/signing/sign.js';
import { migratedDatabase } from '../helpers/postgres.js';
import { post, startListener, type Listener } from '../hooks/helpers.js';

const KEY = 'plan-pairs-key';
const NOW = Date.now();
const seconds = (ms: number) => String(Math.floor(ms / 1000));
const DETAILS = [{ Rounds: '1', TaskName: 'PLAN-A_1', TaskID: 'T-PLAN-A-1', Status: 'finished' }];
const plan = (timestamp: string, name = 'PLAN-A', details: unknown = DETAILS) =>
  JSON.stringify({ PlanName: name, Timestamp: timestamp, Sign: planSign(timestamp, KEY), PlanDetails: details });

let url: string;
const open: Array<{ close(): unknown }> = [];
beforeAll(async () => {
  url = await migratedDatabase('pairs');
});
afterAll(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/** A receiver on the shared store, with its own memory, on the test's clock. */
async function receiver(clock: () => number): Promise<Listener> {
  const store = await PostgresEvents.open(url);
  const listener = await startListener({ port: 0, keys: [KEY], store, now: clock });
  open.push(store, listener);
  return listener;
}

describe('plan-end replay pairs in the shared store', () => {
  it('refuses a Timestamp+Sign pair first seen on another receiver with another PlanName or other details', async () => {
    let clock = NOW;
    const a = await receiver(() => clock);
    const b = await receiver(() => clock);
    const ts = seconds(NOW);
    expect((await post(a.url, plan(ts, 'PLAN-A'))).status).toBe(200);
    // Within 10 s another plan may share the pair (two plans ending in the same second), on either.
    expect((await post(b.url, plan(ts, 'PLAN-SAME-SECOND'))).status).toBe(200);
    clock += 11_000;
    for (const r of [b, a]) {
      const forged = await post(r.url, plan(ts, 'PLAN-FORGED'));
      expect(forged.status, `${r.url}: ${forged.body}`).toBe(401);
      expect(JSON.parse(forged.body).error).toMatch(/replay/);
      const otherDetails = await post(r.url, plan(ts, 'PLAN-A', [{ ...DETAILS[0], Rounds: '9' }]));
      expect(otherDetails.status).toBe(401);
    }
    // The same events again under their pair are the service's retries, not replays, on either.
    expect((await post(b.url, plan(ts, 'PLAN-A'))).status).toBe(200);
    expect((await post(a.url, plan(ts, 'PLAN-SAME-SECOND'))).status).toBe(200);
    // A receiver started later (a restart, with no memory) knows the pair from the store.
    const c = await receiver(() => clock);
    expect((await post(c.url, plan(ts, 'PLAN-FORGED-2'))).status).toBe(401);
    // Another pair is another matter.
    expect((await post(c.url, plan(seconds(NOW + 1_000), 'PLAN-B'))).status).toBe(200);
  });
});
