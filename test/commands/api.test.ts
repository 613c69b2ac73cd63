import { beforeEach, describe, expect, it } from 'vitest';
import { SEED, type Sandbox } from '../../src/sandbox/server.js';
import { defaultServiceSign } from '../../src/signing/sign.js';
import { runCli, type RunOptions } from '../helpers/cli.js';
import { received, tempDir, writeIn } from '../reach/helpers.js';
import { useSandbox } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let env: Record<string, string>;
let token: string;

const fixture = useSandbox();
beforeEach(() => ({ sandbox, env, token } = fixture));

const api = (argv: string[], options: RunOptions = {}) =>
  runCli(['api', ...argv], { ...options, env: { ...env, ...options.env } });

describe('callctl api, cloud endpoints', () => {
  it("GET: -f fields are the query; prints the envelope's data, or the whole answer with --raw", async () => {
    const r = await api(['GET', '/service/cloud/planstatus', '-f', `PlanName=${SEED.planName}`]);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ PlanName: SEED.planName, PlanStatus: 'finished' });
    const [req] = received(sandbox, '/service/cloud/planstatus');
    expect(req!.headers.authorization).toBe(`Token ${token}`);

    const raw = await api(['get', '/service/cloud/planstatus', '-f', `PlanName=${SEED.planName}`, '--raw']);
    expect(raw.code).toBe(0);
    expect(JSON.parse(raw.out)).toMatchObject({ code: 200, status: 'OK', data: { PlanName: SEED.planName } });
  });

  it('a refusal exits 1 naming the endpoint and the service text; --raw still prints the answer', async () => {
    const r = await api(['GET', '/service/cloud/planstatus', '-f', 'PlanName=NO-SUCH-PLAN', '--raw']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: GET \/service\/cloud\/planstatus: .*NO-SUCH-PLAN/m);
    expect(JSON.parse(r.out).code).not.toBe(200);
  });

  it('-v shows the HTTP exchange, and a refusal is still one error line: no stack trace', async () => {
    const r = await api(['GET', '/service/cloud/planstatus', '-f', 'PlanName=NO-SUCH-PLAN', '-v']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^> GET /m);
    const errors = r.err.split('\n').filter((l) => !/^[<>!*] /.test(l) && l !== '');
    expect(errors, r.err).toHaveLength(1);
    expect(errors[0]).toMatch(/^error: GET \/service\/cloud\/planstatus: .*NO-SUCH-PLAN/);
    expect(r.err).not.toMatch(/^\s+at /m);
  });

  it('a GET is retried on 500s; a rejected token is exit 4; no network is exit 5', async () => {
    sandbox.faults.fail500 = 2;
    const retried = await api(['GET', '/service/cloud/robot']);
    expect(retried.code, retried.err).toBe(0);
    expect(received(sandbox, '/service/cloud/robot')).toHaveLength(3);
    expect(JSON.parse(retried.out).map((r: { RobotID: string }) => r.RobotID)).toEqual(SEED.robotIds);

    const rejected = await api(['GET', '/service/cloud/robot'], { env: { CALLCTL_TOKEN: 'not-a-token' } });
    expect(rejected.code).toBe(4);

    const down = await api(['GET', '/service/cloud/robot'], { env: { CALLCTL_BASE_URL: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(5);
  });

  // A list update reaches people (its contacts get called): unlike the POSTs that only read.
  const UPDATE = '/service/cloud/workflow/updatedetails';
  const update = [
    '-f',
    `workflow_id=${SEED.workflowId}`,
    '-F',
    'details=[{"callee":"+6281234567001","platform":"x","variables":{}}]',
  ];

  it('a POST that is not a read needs --yes without a terminal and then is sent once, even on a 500', async () => {
    const refused = await api(['POST', UPDATE, ...update]);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/may reach people.*--yes/);
    expect(received(sandbox, UPDATE)).toHaveLength(0);

    const sent = await api(['POST', UPDATE, ...update, '--yes']);
    expect(sent.code, sent.err).toBe(0);
    const [req] = received(sandbox, UPDATE);
    expect(JSON.parse(req!.body.toString())).toEqual({
      workflow_id: SEED.workflowId,
      details: [{ callee: '+6281234567001', platform: 'x', variables: {} }],
    });

    sandbox.requests.length = 0;
    sandbox.faults.fail500 = 1;
    const once = await api(['POST', UPDATE, ...update, '--yes']);
    expect(once.code).not.toBe(0);
    expect(once.err).toMatch(/POST \/service\/cloud\/workflow\/updatedetails: HTTP 500/);
    expect(received(sandbox, UPDATE)).toHaveLength(1);
  });

  it('on a terminal a POST that is not a read asks first; declining sends nothing and exits 130', async () => {
    const declined = await api(['POST', UPDATE, ...update], { tty: true, answers: [false] });
    expect(declined.code).toBe(130);
    expect(declined.io.asked).toEqual(['Send it?']);
    expect(declined.err).toContain(`POST ${UPDATE}`);
    expect(received(sandbox, UPDATE)).toHaveLength(0);
  });

  it('--input is the exact body (file or stdin); -F reads JSON values; fields then go in the query', async () => {
    const dir = tempDir();
    const body = `{"task_id": "${SEED.workflowTaskId}"}`;
    const file = writeIn(dir, 'body.json', body);
    const r = await api(['POST', '/service/cloud/workflow/taskdetail', '--input', file, '-F', 'n=3', '--yes']);
    expect(r.code, r.err).toBe(0);
    const [req] = received(sandbox, '/service/cloud/workflow/taskdetail');
    expect(req!.body.toString()).toBe(body);
    expect(new URL(req!.path, 'http://x').searchParams.get('n')).toBe('3');

    const typed = await api([
      'POST',
      '/service/cloud/workflow/taskdetail',
      '-f',
      `task_id=${SEED.workflowTaskId}`,
      '-F',
      'n=3',
      '-F',
      'flag=true',
      '-F',
      'list=[1,"a"]',
      '-F',
      'text=plain',
      '--yes',
    ]);
    expect(typed.code, typed.err).toBe(0);
    expect(JSON.parse(received(sandbox, '/service/cloud/workflow/taskdetail')[1]!.body.toString())).toEqual({
      task_id: SEED.workflowTaskId,
      n: 3,
      flag: true,
      list: [1, 'a'],
      text: 'plain',
    });

    const stdin = await api(['POST', '/service/cloud/workflow/taskdetail', '--input', '-', '--yes'], { stdin: body });
    expect(stdin.code, stdin.err).toBe(0);

    const notJson = await api(['POST', '/service/cloud/workflow/taskdetail', '--input', '-', '--yes'], {
      stdin: 'task_id=1',
    });
    expect(notJson.code).toBe(3);
    expect(notJson.err).toMatch(/--input -: not JSON.*nothing was sent/);
    const missing = await api(['POST', '/x', '--input', `${dir}/nope.json`, '--yes']);
    expect(missing.code).toBe(3);
    expect(received(sandbox, '/service/cloud/workflow/taskdetail')).toHaveLength(3);
  });

  it('bad input is one line and exit 2, before any request', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['DELETE', '/service/cloud/robot'], /METHOD must be GET or POST/],
      [['GET', 'https://elsewhere.example/service/cloud/robot'], /not a URL/],
      [['GET', '//elsewhere.example/x'], /not a URL/],
      [['GET', 'service/cloud/robot'], /must start with \//],
      [['GET', '/service/cloud/detail?TaskID=1'], /-f key=value/],
      [['GET', '/service/cloud/detail', '-f', 'TaskID'], /expected key=value/],
      [['POST', '/service/cloud/auth', '-f', 'APPSecret=hunter22', '--yes'], /APPSecret is a secret/],
      [['GET', '/x', '--input', '-'], /a GET has no body/],
      [['GET', '/x', '--flex', '--template-api'], /give one/],
      [['GET', '/x', '--test'], /--test goes with --flex/],
      [['GET', '/api/push/{push_token}'], /add --flex/],
    ];
    for (const [argv, message] of cases) {
      const r = await api(argv, { stdin: '{}' });
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err.trim().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(r.err).toMatch(message);
      expect(r.err).not.toContain('hunter22');
    }
    expect(sandbox.requests).toHaveLength(0);
  });

  it('secrets never reach the output: the token in an answer and in --verbose is redacted', async () => {
    const r = await api(['POST', '/service/cloud/auth', '--input', '-', '--yes', '-v'], {
      stdin: JSON.stringify({ APPKey: sandbox.appKey, APPSecret: sandbox.appSecret }),
    });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ token: '***' });
    expect(r.err).toContain('authorization: Token ***');
    expect(`${r.out}${r.err}`).not.toContain(token);
    expect(`${r.out}${r.err}`).not.toContain(sandbox.appSecret);
  });
});

describe('callctl api, the other two addresses', () => {
  it('--flex: {push_token} in the path is the push token, sent once, redacted everywhere', async () => {
    const dir = tempDir();
    const call = writeIn(
      dir,
      'call.json',
      JSON.stringify({ caller_id: '+6281234567001', variables: { name: 'Budi' } }),
    );
    const flexEnv = { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken };
    const r = await api(['POST', '/api/push/{push_token}', '--flex', '--input', call, '--yes', '-v'], { env: flexEnv });
    expect(r.code, r.err).toBe(0);
    expect(sandbox.state.received.pushes).toHaveLength(1);
    expect(JSON.parse(r.out)).toMatchObject({ code: 200, trace_id: expect.any(String) });
    expect(`${r.out}${r.err}`).not.toContain(sandbox.pushToken);
    expect(r.err).toContain('/api/push/***');
    const [req] = received(sandbox, '/flex/api/push/');
    expect(req!.headers.authorization).toBeUndefined();

    // A refusal by the flex route is exit 1 with its message and trace_id.
    const bad = await api(['POST', '/api/push/{push_token}', '--flex', '-f', 'caller_id=+6281234567001', '--yes'], {
      env: flexEnv,
    });
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^error: POST .*\/api\/push\/\*\*\*: HTTP 400.*variables.*trace_id/);
    expect(bad.err).not.toContain(sandbox.pushToken);
  });

  it('--template-api: signs the exact body with X-Service-Sign-Key and X-Service-Sign', async () => {
    const message = JSON.stringify({
      template_id: 7,
      timestamp: Math.floor(Date.now() / 1000),
      channel: 'whatsapp',
      channel_id: '+6281234567001',
      user_id: '',
      variable: { date: '2026-12-01', name: 'Budi' },
      custom: JSON.stringify({ reply_url: 'https://example.com/replies' }),
    });
    const signEnv = { CALLCTL_SIGN_KEY: sandbox.signKey, CALLCTL_SIGN_SECRET: sandbox.signSecret };
    const r = await api(['POST', '/api/v1/template/unitcast', '--template-api', '--input', '-', '--yes'], {
      env: signEnv,
      stdin: message,
    });
    expect(r.code, r.err).toBe(0);
    expect(sandbox.state.received.templates).toHaveLength(1);
    const [req] = received(sandbox, '/api/v1/template/unitcast');
    expect(req!.body.toString()).toBe(message);
    expect(req!.headers['x-service-sign-key']).toBe(sandbox.signKey);
    expect(req!.headers['x-service-sign']).toBe(defaultServiceSign(req!.body, sandbox.signSecret));
    expect(req!.headers.authorization).toBeUndefined();
    expect(JSON.parse(r.out)).toMatchObject({ code: 200, data: { task_id: expect.any(String) } });

    const unsigned = await api(['POST', '/api/v1/template/unitcast', '--template-api', '--input', '-', '--yes'], {
      env: { CALLCTL_SIGN_KEY: sandbox.signKey },
      stdin: message,
    });
    expect(unsigned.code).toBe(2);
    expect(unsigned.err).toMatch(/missing X-Service-Sign/);
    expect(sandbox.state.received.templates).toHaveLength(1);
  });
});

describe('callctl api as people know it from gh api (issue 23 item 5)', () => {
  it('a read needs no --yes whatever its method: the POSTs that only read are sent without a terminal', async () => {
    const task = await api(['POST', '/service/cloud/workflow/taskdetail', '-f', `task_id=${SEED.workflowTaskId}`]);
    expect(task.code, task.err).toBe(0);
    expect(JSON.parse(task.out).task_id).toBe(SEED.workflowTaskId);
    const v = SEED.verifyPush;
    const verify = await api([
      'POST',
      '/service/cloud/workflow/apinoticeinfo',
      '-f',
      `workflow_id=${v.workflowId}`,
      '-f',
      `node_id=${v.nodeId}`,
      '-f',
      `callee=${v.callee}`,
    ]);
    expect(verify.code, verify.err).toBe(0);
    // A POST that reaches people still needs it.
    const update = await api(['POST', '/service/cloud/workflow/updatedetails', '-f', 'workflow_id=W']);
    expect(update.code).toBe(2);
    expect(received(sandbox, '/service/cloud/workflow/updatedetails')).toHaveLength(0);
  });

  it('-H adds a header; Authorization (and the other headers callctl sets) is refused, nothing sent', async () => {
    const r = await api(['GET', '/service/cloud/robot', '-H', 'Accept-Language: id', '-H', 'X-Trace:abc']);
    expect(r.code, r.err).toBe(0);
    const [req] = received(sandbox, '/service/cloud/robot');
    expect(req!.headers['accept-language']).toBe('id');
    expect(req!.headers['x-trace']).toBe('abc');
    expect(req!.headers.authorization).toBe(`Token ${token}`);
    for (const header of ['Authorization: Token other', 'host: evil.example', 'no-colon']) {
      const bad = await api(['GET', '/service/cloud/robot', '-H', header]);
      expect(bad.code, header).toBe(2);
    }
    expect(received(sandbox, '/service/cloud/robot')).toHaveLength(1);
  });

  it('-i prints the status line and the headers, then the whole answer', async () => {
    const r = await api(['GET', '/service/cloud/robot', '-i']);
    expect(r.code, r.err).toBe(0);
    const [headText, body] = r.out.split('\n\n');
    expect(headText!.split('\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(headText).toMatch(/^content-type: application\/json/m);
    expect(JSON.parse(body!)).toMatchObject({ code: 200, status: 'OK' });
    const refused = await api(['GET', '/service/cloud/planstatus', '-f', 'PlanName=NO-SUCH-PLAN', '-i']);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/^HTTP\/1\.1 200 OK\n/);
  });

  it('--paginate walks every page of the workflow list, whatever size the service serves', async () => {
    sandbox.setVariants(['page-cap']);
    const r = await api(['GET', '/service/cloud/workflow/instancelist', '--paginate', '-f', 'size=50']);
    expect(r.code, r.err).toBe(0);
    const all = JSON.parse(r.out) as { lists: Array<{ workflow_id: string }>; count: number };
    expect(all.lists).toHaveLength(all.count);
    expect(new Set(all.lists.map((w) => w.workflow_id)).size).toBe(all.count);
    expect(received(sandbox, '/service/cloud/workflow/instancelist').length).toBeGreaterThan(1);
    const other = await api(['GET', '/service/cloud/robot', '--paginate']);
    expect(other.code).toBe(2);
    expect(other.err).toContain('--paginate walks the one list the service pages');
  });
});
