import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { SEED } from '../../src/sandbox/server.js';
import { envelopeSchema } from '../helpers/schemas.js';
import { robotListSchema } from '../../src/schemas/robot.js';
import { callingTaskSchema } from '../../src/schemas/task.js';
import { planDetailDataSchema, planStatusDataSchema } from '../../src/schemas/plan.js';
import { workflowListDataSchema, workflowTaskDetailSchema } from '../../src/schemas/workflow.js';
import { verifyPushDataSchema } from '../../src/schemas/api-push.js';
import { INSTANCE_LIST_PAGING } from '../../src/sandbox/routes/workflow.js';
import { call, sandboxWithToken } from './helpers.js';

let sb: Sandbox;
let token: string;
const get = (path: string) => call(sb.url, 'GET', path, { token });
const post = (path: string, body: unknown) => call(sb.url, 'POST', path, { token, body });

beforeAll(async () => {
  ({ sb, token } = await sandboxWithToken());
});
afterAll(() => sb.close());

/** An envelope error: HTTP 200 unless told, the code, and the reason as the `status` text. */
function expectError(r: Awaited<ReturnType<typeof get>>, code: number, message: RegExp, httpStatus = 200) {
  expect(r.status).toBe(httpStatus);
  expect(r.json).toMatchObject({ code });
  expect(r.json.status).not.toBe('OK');
  expect(r.json.status).toMatch(message);
  expect('data' in r.json).toBe(true);
}

describe('calling endpoints', () => {
  test('GET robot', async () => {
    const r = await get('/service/cloud/robot');
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    const env = envelopeSchema(robotListSchema).parse(r.json);
    expect(env).toMatchObject({ status: 'OK', code: 200 });
    expect(env.data.map((x) => x.RobotID)).toEqual(SEED.robotIds);
  });

  test('GET detail of the debt task', async () => {
    const env = envelopeSchema(callingTaskSchema).parse(
      (await get(`/service/cloud/detail?TaskID=${SEED.debtTaskId}`)).json,
    );
    expect(env.data).toMatchObject({ TaskID: SEED.debtTaskId, Status: 'finished' });
    expect(env.data.detail.length).toBe(8);
  });

  test('GET detail: missing TaskID is code 400, unknown is code 404', async () => {
    expectError(await get('/service/cloud/detail'), 400, /^TaskID is required$/);
    expectError(await get('/service/cloud/detail?TaskID='), 400, /TaskID is required/);
    expectError(await get('/service/cloud/detail?TaskID=T-NOPE'), 404, /^task not found: T-NOPE$/);
  });

  test('plan status and plan detail', async () => {
    const s = envelopeSchema(planStatusDataSchema).parse(
      (await get(`/service/cloud/planstatus?PlanName=${SEED.planName}`)).json,
    );
    expect(s.data).toEqual({ PlanName: 'PLAN-A', PlanStatus: 'finished' });
    const d = envelopeSchema(planDetailDataSchema).parse(
      (await get(`/service/cloud/plandetail?PlanName=${SEED.callingPlanName}`)).json,
    );
    expect(d.data.PlanDetails.map((r) => [r.TaskName, r.Status])).toEqual([
      ['PLAN-B-R1', 'finished'],
      ['PLAN-B-R2', 'calling'],
      ['PLAN-B-R3', 'created'],
    ]);
    expect(Object.keys(s.data)).toEqual(['PlanName', 'PlanStatus']);
  });

  test('plan errors', async () => {
    expectError(await get('/service/cloud/planstatus'), 400, /PlanName is required/);
    expectError(await get('/service/cloud/plandetail'), 400, /PlanName is required/);
    expectError(await get('/service/cloud/planstatus?PlanName=NOPE'), 404, /^plan not found: NOPE$/);
    expectError(await get('/service/cloud/plandetail?PlanName=NOPE'), 404, /plan not found/);
  });

  test('a query value is URL-decoded', async () => {
    const r = await get(`/service/cloud/planstatus?PlanName=${encodeURIComponent('NO PE&x')}`);
    expectError(r, 404, /^plan not found: NO PE&x$/);
  });
});

describe('workflow instance list', () => {
  const list = async (q = '') =>
    envelopeSchema(workflowListDataSchema).parse((await get(`/service/cloud/workflow/instancelist${q}`)).json).data;

  test(`defaults: page ${INSTANCE_LIST_PAGING.page}, size ${INSTANCE_LIST_PAGING.size}, newest first, count of all`, async () => {
    const d = await list();
    expect(d.count).toBe(SEED.workflowCount);
    expect(d.lists).toHaveLength(10);
    expect(d.lists[0]!.workflow_id).toBe(SEED.workflowId);
    const times = d.lists.map((w) => w.create_time);
    expect([...times].sort().reverse()).toEqual(times);
  });

  test('pages walk every instance once', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++)
      seen.push(...(await list(`?page=${page}&size=10`)).lists.map((w) => w.workflow_id));
    expect(seen).toHaveLength(SEED.workflowCount);
    expect(new Set(seen).size).toBe(SEED.workflowCount);
    expect((await list('?page=5&size=10')).lists).toEqual([]);
    expect((await list('?page=5&size=10')).count).toBe(SEED.workflowCount);
  });

  test('start_time and end_time filter on create_time, inclusive', async () => {
    const all = (await list('?size=100')).lists;
    const from = all[20]!.create_time;
    const to = all[5]!.create_time;
    const d = await list(`?size=100&start_time=${from}&end_time=${to}`);
    expect(d.count).toBe(16);
    expect(d.lists.map((w) => w.workflow_id)).toEqual(all.slice(5, 21).map((w) => w.workflow_id));
  });

  test.each([
    ['?page=0', /page must be/],
    ['?page=x', /page must be/],
    ['?size=101', /size must be a whole number from 1 to 100/],
    ['?size=-1', /size must be/],
    ['?start_time=2025-01-01', /start_time must be YYYY-MM-DDTHH:MM:SSZ/],
    ['?end_time=yesterday', /end_time must be/],
  ])('%s is code 400', async (q, message) => {
    expectError(await get(`/service/cloud/workflow/instancelist${q}`), 400, message);
  });
});

describe('workflow task detail and verify-push', () => {
  test('taskdetail of the seeded information-check task', async () => {
    const env = envelopeSchema(workflowTaskDetailSchema).parse(
      (await post('/service/cloud/workflow/taskdetail', { task_id: SEED.workflowTaskId })).json,
    );
    expect(env.data).toMatchObject({ task_id: SEED.workflowTaskId, workflow_id: SEED.workflowId });
    expect(env.data.details.some((d) => (d.question_answer ?? []).length > 0)).toBe(true);
  });

  test('taskdetail errors', async () => {
    expectError(await post('/service/cloud/workflow/taskdetail', {}), 400, /task_id/);
    expectError(await post('/service/cloud/workflow/taskdetail', { task_id: 5 }), 400, /task_id/);
    expectError(
      await post('/service/cloud/workflow/taskdetail', { task_id: 'nope' }),
      404,
      /^workflow task not found: nope$/,
    );
    const r = await call(sb.url, 'POST', '/service/cloud/workflow/taskdetail', { token, raw: 'not json' });
    expectError(r, 400, /invalid JSON/, 400);
  });

  test('verify-push answers the newest push for the callee, with call.robot_id', async () => {
    const v = SEED.verifyPush;
    const r = await post('/service/cloud/workflow/apinoticeinfo', {
      workflow_id: v.workflowId,
      node_id: v.nodeId,
      callee: v.callee,
    });
    const env = envelopeSchema(verifyPushDataSchema).parse(r.json);
    expect(env.data.call.robot_id).toBe('rb-1004');
    expect(env.data.callee.callee_number).toBe(v.callee);
    const pushes = sb.state.apiPushes.filter((p) => p.data.callee.callee_number === v.callee);
    const newest = pushes.reduce((a, b) => (a.pushedAt > b.pushedAt ? a : b));
    expect(env.data.call.call_id).toBe(newest.data.call.call_id);
  });

  test('verify-push with case_id filters on it', async () => {
    const v = SEED.verifyPush;
    const body = { workflow_id: v.workflowId, node_id: v.nodeId, callee: v.callee };
    expect((await post('/service/cloud/workflow/apinoticeinfo', { ...body, case_id: v.caseId })).json.code).toBe(200);
    expectError(
      await post('/service/cloud/workflow/apinoticeinfo', { ...body, case_id: 'OTHER' }),
      404,
      /case_id OTHER/,
    );
  });

  test('verify-push: older than three months, unknown node or workflow, missing fields', async () => {
    const e = SEED.expiredPush;
    expectError(
      await post('/service/cloud/workflow/apinoticeinfo', {
        workflow_id: e.workflowId,
        node_id: e.nodeId,
        callee: e.callee,
      }),
      404,
      /no custom API push found .* last 3 months/,
    );
    expectError(
      await post('/service/cloud/workflow/apinoticeinfo', {
        workflow_id: e.workflowId,
        node_id: 'node-x',
        callee: SEED.verifyPush.callee,
      }),
      404,
      /no custom API push/,
    );
    expectError(
      await post('/service/cloud/workflow/apinoticeinfo', { workflow_id: 'wf-x', node_id: e.nodeId, callee: e.callee }),
      404,
      /^workflow not found: wf-x$/,
    );
    expectError(
      await post('/service/cloud/workflow/apinoticeinfo', { workflow_id: e.workflowId, callee: e.callee }),
      400,
      /node_id/,
    );
  });
});

describe('routing', () => {
  test('an unknown path is HTTP 404 with an envelope', async () => {
    expectError(await get('/service/cloud/nope'), 404, /no such endpoint: GET \/service\/cloud\/nope/, 404);
  });

  test('a wrong method is HTTP 405 with Allow', async () => {
    const r = await call(sb.url, 'POST', '/service/cloud/robot', { token, body: {} });
    expectError(r, 405, /use GET/, 405);
    expect(r.headers.get('allow')).toBe('GET');
  });

  test('many concurrent requests are all answered correctly', async () => {
    const ids = [...sb.state.tasks.keys()];
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => get(`/service/cloud/detail?TaskID=${ids[i % ids.length]}`)),
    );
    expect(answers.map((a) => a.json.data.TaskID)).toEqual(Array.from({ length: 200 }, (_, i) => ids[i % ids.length]));
  });
});

describe('request format', () => {
  test('a body without Content-Type application/json is HTTP 415', async () => {
    const r = await call(sb.url, 'POST', '/service/cloud/workflow/taskdetail', {
      token,
      raw: JSON.stringify({ task_id: SEED.workflowTaskId }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.status).toBe(415);
    expect(r.json).toMatchObject({ code: 415, status: 'Content-Type must be application/json' });
    const ok = await call(sb.url, 'POST', '/service/cloud/workflow/taskdetail', {
      token,
      raw: JSON.stringify({ task_id: SEED.workflowTaskId }),
      headers: { 'content-type': 'Application/JSON; charset=utf-8' },
    });
    expect(ok.json.code).toBe(200);
  });

  test('a listener that throws does not bring the sandbox down', async () => {
    const errors: Error[] = [];
    sb.events.on('internal-error', (e) => errors.push(e));
    const boom = () => {
      throw new Error('listener failed');
    };
    sb.events.once('request', boom);
    await expect(get('/service/cloud/robot')).rejects.toThrow();
    expect(errors.map((e) => e.message)).toContain('listener failed');
    expect((await get('/service/cloud/robot')).status).toBe(200);
  });
});
