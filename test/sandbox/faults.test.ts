import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { SEED, startSandbox } from '../../src/sandbox/server.js';
import { call, entries, sandboxWithToken, settle } from './helpers.js';

let sb: Sandbox;
let token: string;
const robots = () => call(sb.url, 'GET', '/service/cloud/robot', { token });
const UPDATE = '/service/cloud/workflow/updatedetails';

beforeAll(async () => {
  ({ sb, token } = await sandboxWithToken());
});
afterEach(() => sb.resetFaults());
afterAll(() => sb.close());

describe('request faults', () => {
  test('fail500: the next N answer HTTP 500, then normal; counted', async () => {
    sb.faults.fail500 = 2;
    const before = sb.state.counters.faults.fail500 ?? 0;
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await robots()).status);
    expect(statuses).toEqual([500, 500, 200]);
    expect(sb.state.counters.faults.fail500).toBe(before + 2);
    expect(sb.faults.fail500).toBe(0);
  });

  test('a 500 carries an envelope with code 500', async () => {
    sb.faults.fail500 = 1;
    const r = await robots();
    expect(r.json).toMatchObject({ code: 500 });
    expect(sb.requests.at(-1)).toMatchObject({ status: 500, code: 500, fault: 'fail500', outcome: 'answered' });
  });

  test('fail429 with Retry-After', async () => {
    sb.setFaults({ fail429: 1, retryAfter: 3 });
    const r = await robots();
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('3');
    expect(r.json.code).toBe(429);
    expect((await robots()).status).toBe(200);
  });

  test('failRate: about that fraction fails (seeded)', async () => {
    sb.faults.failRate = 0.5;
    const answers = await Promise.all(Array.from({ length: 200 }, () => robots()));
    const failed = answers.filter((a) => a.status === 500).length;
    expect(failed).toBeGreaterThan(60);
    expect(failed).toBeLessThan(140);
    sb.faults.failRate = 1;
    expect((await robots()).status).toBe(500);
  });

  test('drop: the connection is destroyed, nothing answered; recorded as dropped', async () => {
    sb.faults.drop = 1;
    const r = await settle(robots());
    expect(r).toBeInstanceOf(Error);
    expect(sb.requests.at(-1)).toMatchObject({ outcome: 'dropped', fault: 'drop' });
    expect(sb.requests.at(-1)!.status).toBeUndefined();
    expect((await robots()).status).toBe(200);
  });

  test('dropAfterBody: the body is read (and recorded), then the connection is destroyed', async () => {
    sb.faults.dropAfterBody = 1;
    const pushes = sb.state.received.pushes.length;
    const r = await settle(
      call(sb.url, 'POST', `/flex/api/push/${sb.pushToken}`, { body: { caller_id: '+6281111111111', variables: {} } }),
    );
    expect(r).toBeInstanceOf(Error);
    const rec = sb.requests.at(-1)!;
    expect(rec).toMatchObject({ outcome: 'dropped-after-body', fault: 'dropAfterBody' });
    expect(JSON.parse(rec.body)).toMatchObject({ caller_id: '+6281111111111' });
    // Dropped before handling: the push was not taken.
    expect(sb.state.received.pushes.length).toBe(pushes);
  });

  test('dropAnswer: the request is handled (the push taken), then the connection is destroyed', async () => {
    sb.faults.dropAnswer = 1;
    const pushes = sb.state.received.pushes.length;
    const r = await settle(
      call(sb.url, 'POST', `/flex/api/push/${sb.pushToken}`, { body: { caller_id: '+6281111111112', variables: {} } }),
    );
    expect(r).toBeInstanceOf(Error);
    expect(sb.requests.at(-1)).toMatchObject({ outcome: 'dropped-answer', fault: 'dropAnswer' });
    // Handled: the call was placed, though nobody was told.
    expect(sb.state.received.pushes.length).toBe(pushes + 1);
    expect(sb.state.received.pushes.at(-1)).toMatchObject({ caller_id: '+6281111111112' });
  });

  test('delayMs slows every answer', async () => {
    sb.faults.delayMs = 120;
    const t0 = performance.now();
    await robots();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(110);
  });

  test('path limits faults to a prefix', async () => {
    sb.setFaults({ path: '/service/cloud/workflow/', fail500: 1 });
    expect((await robots()).status).toBe(200);
    const r = await call(sb.url, 'GET', '/service/cloud/workflow/instancelist', { token });
    expect(r.status).toBe(500);
    expect(sb.faults.fail500).toBe(0);
  });

  test('faults at start', async () => {
    const s = await startSandbox({ faults: { fail429: 1, retryAfter: 2 } });
    try {
      const r = await call(s.url, 'GET', '/service/cloud/robot');
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('2');
    } finally {
      await s.close();
    }
  });

  test('faults come before auth: a 500 is answered without a token', async () => {
    sb.faults.fail500 = 1;
    expect((await call(sb.url, 'GET', '/service/cloud/robot')).status).toBe(500);
  });
});

describe('updatedetails batch faults', () => {
  const send = (from: number) =>
    call(sb.url, 'POST', UPDATE, { token, body: { workflow_id: 'wf-20015', details: entries(2, from) } });
  const kept = () => sb.state.received.updates.get('wf-20015')?.entries.map((e) => e.caseid) ?? [];
  afterEach(() => sb.state.received.updates.delete('wf-20015'));

  test('envelope, once: the 2nd batch fails with code 500; its retry is accepted', async () => {
    sb.faults.failBatch = { index: 2, mode: 'envelope', repeat: 'once' };
    expect((await send(0)).json.code).toBe(200);
    const failed = await send(2);
    expect(failed.status).toBe(200);
    expect(failed.json).toMatchObject({ code: 500 });
    expect(failed.json.status).toMatch(/batch 2/);
    expect((await send(2)).json.code).toBe(200);
    expect((await send(4)).json.code).toBe(200);
    expect(kept()).toEqual(['C-0', 'C-1', 'C-2', 'C-3', 'C-4', 'C-5']);
    expect(sb.faults.failBatch).toBeNull();
  });

  test('envelope, always: the 2nd batch fails every time; batches are counted from when the fault was set', async () => {
    await send(100); // before the fault: not counted
    sb.faults.failBatch = { index: 2, mode: 'envelope', repeat: 'always' };
    expect((await send(0)).json.code).toBe(200);
    for (let i = 0; i < 3; i++) expect((await send(2)).json.code).toBe(500);
    sb.faults.failBatch = null;
    expect((await send(2)).json.code).toBe(200);
    expect(kept()).toEqual(['C-100', 'C-101', 'C-0', 'C-1', 'C-2', 'C-3']);
  });

  test('drop: the connection is destroyed and nothing is kept', async () => {
    sb.setFaults({ failBatch: { index: 1, mode: 'drop' } });
    expect(await settle(send(0))).toBeInstanceOf(Error);
    expect(kept()).toEqual([]);
    expect((await send(0)).json.code).toBe(200);
    expect(kept()).toEqual(['C-0', 'C-1']);
  });

  test('drop-after-accept: the entries are kept though the client saw a dropped connection', async () => {
    sb.setFaults({ failBatch: { index: 1, mode: 'drop-after-accept' } });
    expect(await settle(send(0))).toBeInstanceOf(Error);
    expect(kept()).toEqual(['C-0', 'C-1']);
    expect(sb.requests.at(-1)!.outcome).toBe('dropped-after-body');
  });

  test('an invalid batch is answered as such and does not count', async () => {
    sb.faults.failBatch = { index: 1, mode: 'envelope', repeat: 'once' };
    const bad = await call(sb.url, 'POST', UPDATE, {
      token,
      body: { workflow_id: 'wf-20015', details: [{ callee: 'x' }] },
    });
    expect(bad.json.code).toBe(400);
    expect((await send(0)).json.code).toBe(500);
  });
});

describe('admin endpoints', () => {
  test('POST /__sandbox/faults patches, GET reads, DELETE resets', async () => {
    const set = await call(sb.url, 'POST', '/__sandbox/faults', { body: { fail500: 1, failBatch: { index: 3 } } });
    expect(set.json.data).toMatchObject({ fail500: 1, failBatch: { index: 3, mode: 'envelope', repeat: 'once' } });
    expect(sb.faults.fail500).toBe(1);
    expect((await call(sb.url, 'GET', '/__sandbox/faults')).json.data.fail500).toBe(1);
    expect((await robots()).status).toBe(500);
    await call(sb.url, 'DELETE', '/__sandbox/faults');
    expect(sb.faults).toMatchObject({ fail500: 0, failBatch: null });
  });

  test('a bad fault setting is HTTP 400 naming the field; nothing changes', async () => {
    const r = await call(sb.url, 'POST', '/__sandbox/faults', { body: { failRate: 2, drop: 1 } });
    expect(r.status).toBe(400);
    expect(r.json.status).toMatch(/failRate/);
    expect(sb.faults.drop).toBe(0);
    expect((await call(sb.url, 'POST', '/__sandbox/faults', { body: { nope: 1 } })).json.status).toMatch(/nope/);
  });

  test('admin requests are never faulted nor recorded', async () => {
    sb.faults.fail500 = 5;
    const before = sb.state.counters.requests;
    expect((await call(sb.url, 'GET', '/__sandbox/state')).status).toBe(200);
    expect(sb.state.counters.requests).toBe(before);
    expect(sb.faults.fail500).toBe(5);
  });

  test('GET /__sandbox/requests: records with secrets redacted; DELETE clears them and the counters', async () => {
    await call(sb.url, 'DELETE', '/__sandbox/requests');
    expect(sb.state.counters.requests).toBe(0);
    await call(sb.url, 'POST', '/service/cloud/auth', { body: { APPKey: sb.appKey, APPSecret: sb.appSecret } });
    await robots();
    await call(sb.url, 'POST', `/flex/api/push/${sb.pushToken}`, {
      body: { caller_id: '+6281111111111', variables: {} },
    });
    const r = await call(sb.url, 'GET', '/__sandbox/requests');
    expect(r.json.data.count).toBe(3);
    expect(r.text).not.toContain(sb.appSecret);
    expect(r.text).not.toContain(token);
    expect(r.text).not.toContain(sb.pushToken);
    expect(r.json.data.requests.map((x: { path: string }) => x.path)).toEqual([
      '/service/cloud/auth',
      '/service/cloud/robot',
      '/flex/api/push/<token>',
    ]);
    const only = await call(sb.url, 'GET', '/__sandbox/requests?path=/flex&limit=5');
    expect(only.json.data.requests).toHaveLength(1);
    expect(sb.state.counters.byRoute).toEqual({
      'POST /service/cloud/auth': 1,
      'GET /service/cloud/robot': 1,
      'POST /flex/api/push/<token>': 1,
    });
  });

  test('GET /__sandbox/state summarises', async () => {
    const r = await call(sb.url, 'GET', '/__sandbox/state');
    const d = r.json.data;
    expect(d.url).toBe(sb.url);
    expect(d.tasks.find((t: { TaskID: string }) => t.TaskID === SEED.debtTaskId)).toMatchObject({
      Status: 'finished',
      calls: 8,
    });
    expect(d.plans).toContainEqual({ PlanName: SEED.planName, PlanStatus: 'finished' });
    expect(d.workflows).toBe(SEED.workflowCount);
    expect(d.faults).toMatchObject({ fail500: 0 });
  });

  test('an unknown admin path is 404', async () => {
    expect((await call(sb.url, 'GET', '/__sandbox/nope')).status).toBe(404);
  });

  test('requests are capped at maxRequestRecords', async () => {
    const s = await startSandbox({ maxRequestRecords: 10 });
    try {
      for (let i = 0; i < 30; i++) await call(s.url, 'GET', '/service/cloud/robot');
      expect(s.requests.length).toBeLessThanOrEqual(11);
      expect(s.requests.at(-1)!.seq).toBe(30);
      expect(s.state.counters.requests).toBe(30);
    } finally {
      await s.close();
    }
  });
});
