import { afterEach, describe, expect, test } from 'vitest';
import type { Sandbox, SandboxEventMap } from '../../src/sandbox/server.js';
import { SEED, startSandbox } from '../../src/sandbox/server.js';
import { MINUTE } from '../../src/sandbox/clock.js';
import { SimulationError } from '../../src/sandbox/simulation.js';
import { callingTaskSchema } from '../../src/schemas/task.js';
import { call } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

/** Collects the events of one kind. */
function collect<K extends keyof SandboxEventMap>(s: Sandbox, name: K): SandboxEventMap[K][0][] {
  const seen: SandboxEventMap[K][0][] = [];
  s.events.on(name, ((e: SandboxEventMap[K][0]) => seen.push(e)) as never);
  return seen;
}

describe('task lifecycle', () => {
  test('created -> pending -> calling -> finished as simulated time advances', async () => {
    sb = await startSandbox();
    const statuses = collect(sb, 'task.status');
    const task = sb.simulate.createTask({ numbers: ['+6281200000001', '+6281200000002'], startInMs: 10 * MINUTE });
    expect(task).toMatchObject({ TaskID: 'T-SIM-0001', Status: 'created', detail: [] });
    sb.simulate.advanceTime(MINUTE);
    expect(task.Status).toBe('pending');
    sb.simulate.advanceTime(9 * MINUTE);
    expect(task.Status).toBe('calling');
    sb.simulate.advanceTime(5 * MINUTE);
    expect(task.Status).toBe('calling');
    sb.simulate.advanceTime(MINUTE);
    expect(task.Status).toBe('finished');
    expect(task.detail.map((r) => r.CalleeNumber)).toEqual(['+6281200000001', '+6281200000002']);
    callingTaskSchema.parse(task);
    expect(statuses.filter((e) => e.task.TaskID === task.TaskID).map((e) => `${e.from}>${e.to}`)).toEqual([
      'created>pending',
      'pending>calling',
      'calling>finished',
    ]);
  });

  test('with timeScale 1000 a task finishes by itself in real time, with task.finished', async () => {
    sb = await startSandbox({ timeScale: 1000 });
    const task = sb.simulate.createTask({ calleeCount: 2, startInMs: MINUTE });
    const t0 = performance.now();
    const finished = await new Promise<SandboxEventMap['task.finished'][0]>((resolve) => {
      sb!.events.on('task.finished', (e) => {
        if (e.task.TaskID === task.TaskID) resolve(e);
      });
    });
    // 1 minute to start plus 2 calls of 3 minutes: 7 simulated minutes, 420 ms.
    expect(performance.now() - t0).toBeGreaterThan(300);
    expect(finished.task.detail).toHaveLength(2);
    const token = sb.issueToken();
    const r = await call(sb.url, 'GET', `/service/cloud/detail?TaskID=${task.TaskID}`, { token });
    expect(r.json.data.Status).toBe('finished');
  });

  test('finishTask walks every remaining state; advanceTask moves one step', async () => {
    sb = await startSandbox();
    const statuses = collect(sb, 'task.status');
    const t = sb.simulate.createTask({ id: 'T-MINE' });
    expect(sb.simulate.advanceTask('T-MINE').Status).toBe('pending');
    sb.simulate.finishTask('T-MINE');
    expect(statuses.map((e) => e.to)).toEqual(['pending', 'calling', 'finished']);
    expect(t.detail).toHaveLength(3);
    expect(() => sb!.simulate.advanceTask('T-MINE')).toThrow(/finished; it cannot move on/);
    expect(() => sb!.simulate.createTask({ id: 'T-MINE' })).toThrow(/already exists/);
    expect(() => sb!.simulate.finishTask('T-NOPE')).toThrow(SimulationError);
    expect(() => sb!.simulate.finishTask(SEED.canceledTaskId)).toThrow(/canceled/);
  });

  test('a paused task resumes calling when advanced', async () => {
    sb = await startSandbox();
    expect(sb.simulate.advanceTask(SEED.pausedTaskId).Status).toBe('calling');
  });

  test('the seeded calling task finishes about 30 simulated minutes after start', async () => {
    sb = await startSandbox();
    const t = sb.state.tasks.get(SEED.callingTaskId)!.task;
    sb.simulate.advanceTime(25 * MINUTE);
    expect(t.Status).toBe('calling');
    sb.simulate.advanceTime(10 * MINUTE);
    expect(t.Status).toBe('finished');
    expect(t.detail).toHaveLength(20);
  });
});

describe('plan lifecycle', () => {
  test('planned -> calling -> finished as rounds finish; round k+1 starts after round k', async () => {
    sb = await startSandbox();
    const planEvents = collect(sb, 'plan.status');
    const finished = collect(sb, 'plan.finished');
    const plan = sb.simulate.createPlan({ name: 'PLAN-T', rounds: 2, calleeCount: 2 });
    expect(plan.PlanStatus).toBe('planned');
    expect(plan.PlanDetails.map((r) => r.TaskName)).toEqual(['PLAN-T-R1', 'PLAN-T-R2']);
    sb.simulate.advanceTask('T-PLAN-T-R1'); // pending
    sb.simulate.advanceTask('T-PLAN-T-R1'); // calling
    expect(sb.state.plans.get('PLAN-T')!.PlanStatus).toBe('calling');
    expect(sb.state.tasks.get('T-PLAN-T-R2')!.task.Status).toBe('created');
    sb.simulate.finishTask('T-PLAN-T-R1');
    expect(sb.state.tasks.get('T-PLAN-T-R2')!.task.Status).toBe('pending');
    sb.simulate.advanceTime(31 * MINUTE + 6 * MINUTE);
    expect(sb.state.plans.get('PLAN-T')!.PlanStatus).toBe('finished');
    expect(planEvents.map((e) => `${e.from}>${e.to}`)).toEqual(['planned>calling', 'calling>finished']);
    expect(finished).toHaveLength(1);
    expect(finished[0]!.plan.PlanDetails.every((r) => r.Status === 'finished')).toBe(true);
  });

  test('finishPlan finishes the seeded calling plan', async () => {
    sb = await startSandbox();
    const view = sb.simulate.finishPlan(SEED.callingPlanName);
    expect(view.PlanStatus).toBe('finished');
    const r = await call(sb.url, 'GET', `/service/cloud/planstatus?PlanName=${SEED.callingPlanName}`, {
      token: sb.issueToken(),
    });
    expect(r.json.data.PlanStatus).toBe('finished');
  });
});

describe('POST /__sandbox/simulate', () => {
  test('actions over HTTP, errors as envelope codes', async () => {
    sb = await startSandbox();
    const sim = (body: unknown) => call(sb!.url, 'POST', '/__sandbox/simulate', { body });
    expect((await sim({ action: 'createTask', id: 'T-HTTP', calleeCount: 1 })).json.data).toMatchObject({
      TaskID: 'T-HTTP',
      Status: 'created',
    });
    expect((await sim({ action: 'finishTask', id: 'T-HTTP' })).json.data.Status).toBe('finished');
    expect((await sim({ action: 'createPlan', name: 'P-HTTP' })).json.data.PlanStatus).toBe('planned');
    expect((await sim({ action: 'finishPlan', name: 'P-HTTP' })).json.data.PlanStatus).toBe('finished');
    const before = sb.now();
    const adv = await sim({ action: 'advanceTime', ms: 3_600_000 });
    expect(Date.parse(adv.json.data.now) - before).toBeGreaterThanOrEqual(3_599_000);
    expect((await sim({ action: 'finishTask', id: 'nope' })).status).toBe(404);
    expect((await sim({ action: 'finishTask', id: 'T-HTTP' })).json.data.Status).toBe('finished'); // idempotent
    expect((await sim({ action: 'finishTask', id: SEED.canceledTaskId })).json).toMatchObject({ code: 409 });
    expect((await sim({ action: 'dance' })).status).toBe(400);
  });
});

test('close stops the timers: nothing moves afterwards', async () => {
  const s = await startSandbox({ timeScale: 100_000 });
  const seen = collect(s, 'task.status');
  await s.close();
  const n = seen.length;
  await new Promise((r) => setTimeout(r, 100));
  expect(seen.length).toBe(n);
  await s.close(); // twice is fine
});
