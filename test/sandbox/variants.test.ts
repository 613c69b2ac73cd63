import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, test } from 'vitest';
import { SEED, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { SANDBOX_VARIANTS, VARIANT_NAMES, type VariantName } from '../../src/sandbox/variants.js';
import { ODD_VALUES } from '../../src/sandbox/variant-data.js';
import { call, entries, type Answer } from './helpers.js';

/**
 * Each variant over HTTP: what the sandbox answers with it on, against what it answers without
 * (the spec read literally). These test the sandbox; the client's matrix is in the command tests.
 */

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function sandbox(variants: VariantName[], o: SandboxOptions = {}): Promise<{ sb: Sandbox; token: string }> {
  const sb = await startSandbox({ ...o, variants });
  cleanup.push(() => sb.close());
  return { sb, token: sb.issueToken() };
}

const get = (sb: Sandbox, token: string, path: string) => call(sb.url, 'GET', path, { token });
const post = (sb: Sandbox, token: string, path: string, body: unknown) => call(sb.url, 'POST', path, { token, body });
const UPDATE = '/service/cloud/workflow/updatedetails';
const VERIFY = '/service/cloud/workflow/apinoticeinfo';
const LIST = '/service/cloud/workflow/instancelist';

/** A refusal in the envelope: the reason as `status` text, never `OK`. */
function refusal(r: Answer, httpStatus: number, code: number, reason: RegExp) {
  expect(r.status).toBe(httpStatus);
  expect(r.json.code).toBe(code);
  expect(r.json.status).not.toBe('OK');
  expect(r.json.status).toMatch(reason);
}

const templateMessage = {
  template_id: 1001,
  timestamp: 1736500000,
  channel: 'whatsapp',
  channel_id: 'wa-01',
  user_id: '',
  variable: { date: '2025-01-10', name: 'Budi' },
  custom: JSON.stringify({ reply_url: 'https://example.com/replies' }),
};

/** Sends the template signed as the spec's reading says: HMAC-SHA256 of the exact body, hex. */
function sendTemplate(sb: Sandbox) {
  const raw = JSON.stringify(templateMessage);
  const sign = createHmac('sha256', sb.signSecret).update(raw).digest('hex');
  return call(sb.url, 'POST', '/api/v1/template/unitcast', {
    raw,
    headers: { 'x-service-sign-key': sb.signKey, 'x-service-sign': sign },
  });
}
const sendPush = (sb: Sandbox) =>
  call(sb.flexUrl, 'POST', `/api/push/${sb.pushToken}`, {
    body: { caller_id: '+6281234500001', variables: { debt_amount: '10' } },
  });

interface Got {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/** A notification receiver: HTTP 500 to the first `failPlanEnds` plan-end attempts, else 200. */
async function receiver(failPlanEnds = 0): Promise<{ url: string; got: Got[] }> {
  const got: Got[] = [];
  let planEnds = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      got.push({ headers: req.headers, body });
      const fail = 'Timestamp' in body && ++planEnds <= failPlanEnds;
      res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got };
}

const until = async (cond: () => boolean, ms = 8000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** Finishes the calling plan and returns its plan-end notifications (all attempts). */
async function planEnd(variants: VariantName[], failures = 0, timeScale = 60_000): Promise<Got[]> {
  const attempts = failures + 1;
  const r = await receiver(failures);
  const { sb } = await sandbox(variants, { notifyUrl: r.url, notifyKey: 'k-1', timeScale });
  sb.simulate.finishPlan(SEED.callingPlanName);
  const ends = () => r.got.filter((g) => g.body.PlanName === SEED.callingPlanName && 'Timestamp' in g.body);
  await until(() => ends().length === attempts);
  return ends();
}

/** The default answer and the answer under one variant, for an endpoint. */
async function both(
  name: VariantName,
  ask: (sb: Sandbox, token: string) => Promise<Answer>,
): Promise<[Answer, Answer]> {
  const plain = await sandbox([]);
  const bent = await sandbox([name]);
  return [await ask(plain.sb, plain.token), await ask(bent.sb, bent.token)];
}

const expired = async (sb: Sandbox) => {
  const token = sb.issueToken();
  sb.expireTokens();
  return call(sb.url, 'GET', '/service/cloud/robot', { token });
};
const wrongCredentials = (sb: Sandbox) =>
  call(sb.url, 'POST', '/service/cloud/auth', { body: { APPKey: sb.appKey, APPSecret: 'wrong' } });
const missingCredentials = (sb: Sandbox) =>
  call(sb.url, 'POST', '/service/cloud/auth', { body: { APPKey: sb.appKey } });

function authVariant(name: VariantName, httpStatus: number, code: number) {
  return async () => {
    const { sb } = await sandbox([name]);
    refusal(await expired(sb), httpStatus, code, /token expired/);
    refusal(
      await call(sb.url, 'GET', '/service/cloud/robot', { token: 'sbx.unknown' }),
      httpStatus,
      code,
      /invalid token/,
    );
    refusal(await wrongCredentials(sb), httpStatus, code, /invalid APPKey or APPSecret/);
    refusal(await missingCredentials(sb), httpStatus, code, /required/);
    // Right credentials still get a token, and other refusals keep their own code.
    expect(
      (await call(sb.url, 'POST', '/service/cloud/auth', { body: { APPKey: sb.appKey, APPSecret: sb.appSecret } })).json
        .code,
    ).toBe(200);
    refusal(await get(sb, sb.issueToken(), '/service/cloud/detail?TaskID=nope'), 200, 404, /task not found: nope/);
  };
}

/** One case per variant: the table must cover every name of SANDBOX_VARIANTS. */
const CASES: Record<VariantName, () => Promise<void>> = {
  'errors-http': async () => {
    const { sb, token } = await sandbox(['errors-http']);
    refusal(await get(sb, token, '/service/cloud/detail?TaskID=nope'), 404, 404, /^task not found: nope$/);
    refusal(await get(sb, token, '/service/cloud/detail'), 400, 400, /TaskID is required/);
    refusal(
      await post(sb, token, UPDATE, { workflow_id: SEED.cancelledWorkflowId, details: entries(1) }),
      409,
      409,
      /cancelled/,
    );
    const r = await get(sb, token, '/service/cloud/detail?TaskID=nope');
    expect(r.json.data).toBeNull();
    expect((await get(sb, token, '/service/cloud/robot')).status).toBe(200);
    refusal(await expired(sb), 401, 401, /token expired/);
  },
  'error-message': async () => {
    const { sb, token } = await sandbox(['error-message']);
    const r = await get(sb, token, '/service/cloud/detail?TaskID=nope');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ data: null, status: 'ERROR', code: 404, message: 'task not found: nope' });
    expect((await get(sb, token, '/service/cloud/robot')).json).toMatchObject({ status: 'OK', code: 200 });
  },
  'auth-401-http': authVariant('auth-401-http', 401, 401),
  'auth-401-code': authVariant('auth-401-code', 200, 401),
  'auth-403-http': authVariant('auth-403-http', 403, 403),
  'auth-403-code': authVariant('auth-403-code', 200, 403),
  'auth-500': async () => {
    const { sb, token } = await sandbox(['auth-500']);
    const r = await call(sb.url, 'POST', '/service/cloud/auth', {
      body: { APPKey: sb.appKey, APPSecret: sb.appSecret },
    });
    refusal(r, 200, 500, /token service is unavailable/);
    expect(r.json.data).toBeNull();
    // Only the token endpoint is in trouble: a token already held still works.
    expect((await get(sb, token, '/service/cloud/robot')).json.code).toBe(200);
  },
  'page-cap': async () => {
    const [plain, capped] = await both('page-cap', (sb, token) => get(sb, token, `${LIST}?page=2&size=10`));
    expect(plain.json.data.lists).toHaveLength(10);
    expect(capped.json.data.lists).toHaveLength(5);
    expect(capped.json.data.count).toBe(SEED.workflowCount);
    // Page 2 of 5-item pages: items 6 to 10 of the whole list.
    const { sb, token } = await sandbox([]);
    const all = (await get(sb, token, `${LIST}?size=100`)).json.data.lists.map(
      (w: { workflow_id: string }) => w.workflow_id,
    );
    expect(capped.json.data.lists.map((w: { workflow_id: string }) => w.workflow_id)).toEqual(all.slice(5, 10));
  },
  'page-ignored': async () => {
    const { sb, token } = await sandbox(['page-ignored']);
    const first = await get(sb, token, `${LIST}?page=1&size=4`);
    const third = await get(sb, token, `${LIST}?page=3&size=4`);
    expect(third.json.data.lists).toHaveLength(4);
    expect(third.json.data.lists).toEqual(first.json.data.lists);
    expect(third.json.data.count).toBe(SEED.workflowCount);
  },
  'count-sent': async () => {
    const { sb, token } = await sandbox(['count-sent']);
    const body = { workflow_id: SEED.workflowId, details: entries(3) };
    expect((await post(sb, token, UPDATE, body)).json.data.count).toBe(3);
    expect((await post(sb, token, UPDATE, body)).json.data.count).toBe(3);
  },
  'count-matched': async () => {
    const { sb, token } = await sandbox(['count-matched']);
    const known = sb.state.workflows.get(SEED.workflowId)!.contacts[0]!;
    const body = {
      workflow_id: SEED.workflowId,
      details: [{ ...known, variables: { name: 'New name' } }, ...entries(2)],
    };
    const first = await post(sb, token, UPDATE, body);
    expect(first.json).toMatchObject({ code: 200, status: 'OK', data: { workflow_id: SEED.workflowId, count: 1 } });
    expect((await post(sb, token, UPDATE, body)).json.data.count).toBe(3);
    // Every entry was received and kept, whatever count says.
    expect(sb.state.received.updates.get(SEED.workflowId)!.count).toBe(6);
  },
  'count-new': async () => {
    const { sb, token } = await sandbox(['count-new']);
    const known = sb.state.workflows.get(SEED.workflowId)!.contacts[0]!;
    const body = { workflow_id: SEED.workflowId, details: [known, ...entries(2)] };
    expect((await post(sb, token, UPDATE, body)).json.data.count).toBe(2);
    expect((await post(sb, token, UPDATE, body)).json.data.count).toBe(0);
    // A repeat within one batch is not new twice.
    const twice = entries(1, 50);
    expect(
      (await post(sb, token, UPDATE, { workflow_id: SEED.workflowId, details: [...twice, ...twice] })).json.data.count,
    ).toBe(1);
    expect(sb.state.received.updates.get(SEED.workflowId)!.count).toBe(8);
  },
  'update-error-200': async () => {
    const { sb, token } = await sandbox(['update-error-200', 'errors-http']);
    const r = await post(sb, token, UPDATE, { workflow_id: 'wf-nope', details: entries(1) });
    refusal(r, 200, 200, /^workflow not found: wf-nope$/);
    expect('data' in r.json).toBe(false);
    refusal(
      await post(sb, token, UPDATE, { workflow_id: SEED.workflowId, details: [{ callee: '123' }] }),
      200,
      200,
      /invalid entry/,
    );
    sb.setFaults({ failBatch: { index: 1 } });
    refusal(
      await post(sb, token, UPDATE, { workflow_id: SEED.workflowId, details: entries(1) }),
      200,
      200,
      /simulated failure of batch 1/,
    );
    // Success is unchanged, and other endpoints keep errors-http.
    expect((await post(sb, token, UPDATE, { workflow_id: SEED.workflowId, details: entries(1) })).json).toMatchObject({
      status: 'OK',
      code: 200,
      data: { count: 1 },
    });
    refusal(await get(sb, token, '/service/cloud/detail?TaskID=nope'), 404, 404, /task not found/);
  },
  'verify-exception-200': async () => {
    const { sb, token } = await sandbox(['verify-exception-200']);
    const e = SEED.expiredPush;
    const r = await post(sb, token, VERIFY, { workflow_id: e.workflowId, node_id: e.nodeId, callee: e.callee });
    refusal(r, 200, 200, /no custom API push found/);
    expect(r.json).toHaveProperty('data', null);
    refusal(await post(sb, token, VERIFY, { workflow_id: e.workflowId, callee: e.callee }), 200, 200, /node_id/);
    const v = SEED.verifyPush;
    expect(
      (await post(sb, token, VERIFY, { workflow_id: v.workflowId, node_id: v.nodeId, callee: v.callee })).json,
    ).toMatchObject({ status: 'OK', code: 200 });
  },
  'odd-values': async () => {
    const { sb, token } = await sandbox(['odd-values']);
    const robots = (await get(sb, token, '/service/cloud/robot')).json.data;
    expect(robots[0].Tone).toBe(ODD_VALUES.Tone);
    expect(robots[0].Voice).toBe(ODD_VALUES.Voice);
    expect(robots[1].Tone).toBe('');
    expect(robots[1].Voice).toBe('');
    expect(robots[2]).toEqual(sb.state.robots[2]);
    const task = (await get(sb, token, `/service/cloud/detail?TaskID=${SEED.debtTaskId}`)).json.data;
    expect(task.Status).toBe(ODD_VALUES.TaskStatus);
    expect(task.detail[0].RingType).toBe(ODD_VALUES.RingType);
    expect(task.detail[1].HangupType).toBe('');
    expect((await get(sb, token, `/service/cloud/planstatus?PlanName=${SEED.planName}`)).json.data.PlanStatus).toBe(
      ODD_VALUES.PlanStatus,
    );
    expect(
      (await get(sb, token, `/service/cloud/plandetail?PlanName=${SEED.planName}`)).json.data.PlanDetails[0].Status,
    ).toBe(ODD_VALUES.TaskStatus);
    expect((await get(sb, token, LIST)).json.data.lists.map((w: { status: string }) => w.status).slice(0, 2)).toEqual([
      ODD_VALUES.WorkflowStatus,
      '',
    ]);
    const wt = (await post(sb, token, '/service/cloud/workflow/taskdetail', { task_id: SEED.workflowTaskId })).json
      .data;
    expect(wt.status).toBe(ODD_VALUES.TaskStatus);
    expect(wt.details[0].question_answer[0].whether_answer).toBe(ODD_VALUES.WhetherAnswer);
    // The model is not changed: the default sandbox state still holds the spec's values.
    expect(sb.state.robots[0]!.Tone).toBe('Polite');
  },
  'optional-missing': async () => {
    const { sb, token } = await sandbox(['optional-missing']);
    const robots = (await get(sb, token, '/service/cloud/robot')).json.data;
    expect(robots[0]).not.toHaveProperty('RobotName');
    expect(robots[0]).not.toHaveProperty('Tone');
    expect(robots[1]).toMatchObject({ RobotName: null, Link: null, Tone: null });
    expect(robots[0]).toHaveProperty('RobotID');
    expect(robots[0]).toHaveProperty('Voice');
    const v = SEED.verifyPush;
    const push = (await post(sb, token, VERIFY, { workflow_id: v.workflowId, node_id: v.nodeId, callee: v.callee }))
      .json.data;
    expect(push.call).not.toHaveProperty('task_id');
    expect(push.call.call_id).toBeNull();
    expect(push.call.intention).toEqual(expect.any(String));
    const task = (await get(sb, token, `/service/cloud/detail?TaskID=${SEED.debtTaskId}`)).json.data;
    expect(task.detail[0]).not.toHaveProperty('AsrResult');
    expect(task.detail[1].AsrResult).toBeNull();
    const lists = (await get(sb, token, LIST)).json.data.lists;
    expect(lists[0].start_time).toBeNull();
    expect(lists[0]).not.toHaveProperty('end_time');
  },
  'reach-code-0': async () => {
    const [plainPush, push] = await both('reach-code-0', (sb) => sendPush(sb));
    expect(plainPush.json.code).toBe(200);
    expect(push.status).toBe(200);
    expect(push.json).toMatchObject({ code: 0, message: 'success', show_err: false });
    const { sb } = await sandbox(['reach-code-0']);
    const t = await sendTemplate(sb);
    expect(t.json).toMatchObject({ code: 0, data: { task_id: expect.any(String) } });
    expect(sb.state.received.templates).toHaveLength(1);
  },
  'reach-odd-shape': async () => {
    const { sb } = await sandbox(['reach-odd-shape']);
    const push = await sendPush(sb);
    expect(push.status).toBe(200);
    expect(push.json).toMatchObject({ code: 200, body: null });
    expect(push.json).not.toHaveProperty('show_err');
    expect(push.json).not.toHaveProperty('trace_id');
    expect(sb.state.received.pushes).toHaveLength(1);
    const t = await sendTemplate(sb);
    expect(t.json.code).toBe(200);
    expect(t.json).not.toHaveProperty('request_id');
    expect(t.json).not.toHaveProperty('data');
    expect(sb.state.received.templates).toHaveLength(1);
  },
  'reach-non-json': async () => {
    const { sb } = await sandbox(['reach-non-json']);
    const push = await sendPush(sb);
    expect(push.status).toBe(200);
    expect(push.json).toBeUndefined();
    expect(push.text.length).toBeGreaterThan(0);
    const t = await sendTemplate(sb);
    expect(t.status).toBe(200);
    expect(t.json).toBeUndefined();
    // Accepted all the same.
    expect(sb.state.received.pushes).toHaveLength(1);
    expect(sb.state.received.templates).toHaveLength(1);
    // A refusal is still JSON.
    expect((await call(sb.flexUrl, 'POST', '/api/push/nope', { body: {} })).json.code).toBe(404);
  },
  'reach-refusal-200': async () => {
    const [plain, bent] = await both('reach-refusal-200', (sb) =>
      call(sb.flexUrl, 'POST', '/api/push/nope', { body: {} }),
    );
    expect(plain.status).toBe(404);
    expect(bent.status).toBe(200);
    expect(bent.json).toMatchObject({
      code: 404,
      show_err: true,
      message: expect.stringMatching(/unknown push token/),
    });
    const { sb } = await sandbox(['reach-refusal-200']);
    const badBody = await call(sb.flexUrl, 'POST', `/api/push/${sb.pushToken}`, { body: { variables: {} } });
    expect([badBody.status, badBody.json.code]).toEqual([200, 400]);
    const raw = JSON.stringify(templateMessage);
    const badSign = await call(sb.url, 'POST', '/api/v1/template/unitcast', {
      raw,
      headers: { 'x-service-sign-key': sb.signKey, 'x-service-sign': 'f'.repeat(64) },
    });
    expect([badSign.status, badSign.json.code]).toEqual([200, 401]);
    expect(badSign.json.message).toMatch(/does not match/);
    // Nothing refused was recorded; a good one still is.
    expect(sb.state.received.pushes).toHaveLength(0);
    expect(sb.state.received.templates).toHaveLength(0);
    expect((await sendPush(sb)).json.code).toBe(200);
  },
  'plan-end-int-timestamp': async () => {
    const [plain] = await planEnd([]);
    expect(typeof plain!.body.Timestamp).toBe('string');
    const [end] = await planEnd(['plan-end-int-timestamp']);
    expect(Number.isInteger(end!.body.Timestamp)).toBe(true);
    expect(end!.body.Sign).toBe(md5(`${end!.body.Timestamp}k-1`));
  },
  'plan-end-task-fields': async () => {
    const [plain] = await planEnd([]);
    expect(plain!.body).not.toHaveProperty('task_id');
    const [end] = await planEnd(['plan-end-task-fields']);
    const rounds = end!.body.PlanDetails as Array<{ TaskID: string }>;
    expect(end!.body.task_id).toBe(rounds.at(-1)!.TaskID);
    for (const f of [
      'task_name',
      'status',
      'created_at',
      'repeat_interval',
      'repeat_number',
      'robot_hash',
      'robot_method',
      'sip_line',
      'schedule_start_time',
      'schedule_end_time',
    ]) {
      expect(end!.body, f).toHaveProperty(f);
    }
    const details = end!.body.details as Array<Record<string, unknown>>;
    expect(details.length).toBeGreaterThan(0);
    expect(Object.keys(details[0]!).sort()).toEqual(
      [
        'id',
        'callee',
        'result',
        'result_label',
        'duration',
        'hangup_type',
        'ring_type',
        'question_answer',
        'robot_hash',
        'call_id',
        'call_times',
        'call_start_time',
        'call_end_time',
      ].sort(),
    );
    expect(end!.body.Sign).toBe(md5(`${end!.body.Timestamp}k-1`));
  },
  'retry-new-sign': async () => {
    // timeScale 30: retries 2 s apart, so the Unix-second Timestamp must change.
    const plain = await planEnd([], 1, 30);
    expect(plain[1]!.body).toEqual(plain[0]!.body);
    const [first, retry] = await planEnd(['retry-new-sign'], 1, 30);
    expect(retry!.body.PlanName).toBe(first!.body.PlanName);
    expect(retry!.body.PlanDetails).toEqual(first!.body.PlanDetails);
    expect(Number(retry!.body.Timestamp)).toBeGreaterThan(Number(first!.body.Timestamp));
    expect(retry!.body.Sign).not.toBe(first!.body.Sign);
    expect(retry!.body.Sign).toBe(md5(`${retry!.body.Timestamp}k-1`));
  },
  'no-user-agent': async () => {
    const [plain] = await planEnd([]);
    expect(plain!.headers['user-agent']).toBe('callctl-sandbox');
    const [end] = await planEnd(['no-user-agent']);
    expect(end!.headers).not.toHaveProperty('user-agent');
    expect(end!.headers['content-type']).toBe('application/json');
  },
};

describe('sandbox variants', () => {
  it('every variant has a case here and a description', () => {
    expect(Object.keys(CASES).sort()).toEqual([...VARIANT_NAMES].sort());
    for (const name of VARIANT_NAMES) expect(SANDBOX_VARIANTS[name].length).toBeGreaterThan(10);
  });

  test.each(VARIANT_NAMES)('%s', async (name) => CASES[name](), 20_000);
});

describe('the default answers (no variant): the spec read literally', () => {
  it('refusals: HTTP 200, the reason in status, data', async () => {
    const { sb, token } = await sandbox([]);
    const r = await get(sb, token, '/service/cloud/detail?TaskID=nope');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ data: null, status: 'task not found: nope', code: 404 });
    refusal(await expired(sb), 200, 401, /token expired/);
    refusal(await wrongCredentials(sb), 200, 401, /invalid APPKey/);
    refusal(await missingCredentials(sb), 200, 403, /required/);
  });

  it('a 500 fault carries the envelope with its reason in status', async () => {
    const { sb, token } = await sandbox([]);
    sb.setFaults({ fail500: 1 });
    const r = await get(sb, token, '/service/cloud/robot');
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ data: null, code: 500 });
    expect(r.json.status).toMatch(/internal server error/);
  });
});

describe('switching variants', () => {
  it('setVariants in-process, GET and POST /__sandbox/variants over HTTP', async () => {
    const { sb, token } = await sandbox([]);
    expect(sb.variants()).toEqual([]);
    expect(sb.setVariants(['page-cap'])).toEqual(['page-cap']);
    expect((await get(sb, token, `${LIST}?size=10`)).json.data.lists).toHaveLength(5);
    const set = await call(sb.url, 'POST', '/__sandbox/variants', { body: { variants: ['errors-http', 'count-new'] } });
    expect(set.json.data.variants).toEqual(['errors-http', 'count-new']);
    expect((await get(sb, token, `${LIST}?size=10`)).json.data.lists).toHaveLength(10);
    const read = await call(sb.url, 'GET', '/__sandbox/variants');
    expect(read.json.data).toEqual({ variants: ['errors-http', 'count-new'], known: SANDBOX_VARIANTS });
    expect((await call(sb.url, 'GET', '/__sandbox/state')).json.data.variants).toEqual(['errors-http', 'count-new']);
    expect((await get(sb, token, '/service/cloud/detail?TaskID=nope')).status).toBe(404);
  });

  it('an unknown name or two that clash: refused, naming the valid ones, nothing changed', async () => {
    const { sb } = await sandbox(['page-cap']);
    const bad = await call(sb.url, 'POST', '/__sandbox/variants', { body: { variants: ['nope'] } });
    expect(bad.status).toBe(400);
    expect(bad.json.status).toMatch(/unknown sandbox variant "nope"; valid: errors-http, error-message, auth-401-http/);
    const clash = await call(sb.url, 'POST', '/__sandbox/variants', {
      body: { variants: ['count-new', 'count-matched'] },
    });
    expect(clash.json.status).toMatch(/count-matched and count-new answer the same point/);
    expect((await call(sb.url, 'POST', '/__sandbox/variants', { body: { names: [] } })).status).toBe(400);
    expect(sb.variants()).toEqual(['page-cap']);
    expect(() => sb.setVariants(['auth-401-http', 'auth-403-http'])).toThrow(RangeError);
    await expect(startSandbox({ variants: ['nope'] })).rejects.toThrow(/unknown sandbox variant/);
  });
});

describe('variants beyond the spec are named as such', () => {
  it('odd-values and optional-missing, and only they, say so in --help, the docs and the sandbox README', async () => {
    const { BEYOND_SPEC, SANDBOX_VARIANTS } = await import('../../src/sandbox/variants.js');
    const { readFileSync } = await import('node:fs');
    expect([...BEYOND_SPEC].sort()).toEqual(['odd-values', 'optional-missing']);
    for (const [name, text] of Object.entries(SANDBOX_VARIANTS))
      expect(/BEYOND THE SPEC/.test(text), name).toBe(BEYOND_SPEC.includes(name as never));
    const readme = readFileSync(new URL('../../docs/sandbox.md', import.meta.url), 'utf8');
    for (const row of readme.split('\n').filter((l) => /^\| `[a-z0-9-]+` \|/.test(l) && l.split('|').length === 5)) {
      const name = /^\| `([a-z0-9-]+)`/.exec(row)![1]!;
      if (!(name in SANDBOX_VARIANTS)) continue;
      expect(/beyond the spec/.test(row), name).toBe(BEYOND_SPEC.includes(name as never));
    }
    const sandboxReadme = readFileSync(new URL('../../src/sandbox/README.md', import.meta.url), 'utf8');
    for (const name of BEYOND_SPEC) expect(sandboxReadme).toMatch(new RegExp(`beyond the spec[^]*\`${name}\``));
  });
});
