import { beforeEach, describe, expect, it } from 'vitest';
import { SEED, VARIANT_NAMES, type Sandbox } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir, type RunOptions } from '../helpers/cli.js';
import { tempDir, writeIn } from '../reach/helpers.js';
import { useSandbox } from '../helpers/sandbox.js';
import { templateSend } from '../helpers/template-send.js';

/**
 * The MATRIX: the command suite against the sandbox in every variant of SANDBOX_VARIANTS (and in
 * none), not a sample. The sandbox is the judge: what a read prints with --json must be exactly
 * the `data` the sandbox served under that variant (fetched directly), a refusal must show the
 * `status` text the sandbox put in its envelope, and what reaches people is counted in the
 * sandbox's own records (each contact, call and message exactly once).
 */

let sandbox: Sandbox;
let token: string;
let env: Record<string, string>;
const fixture = useSandbox();
beforeEach(() => (sandbox = fixture.sandbox));

const cli = (argv: string[], options: RunOptions = {}) => runCli(argv, { ...options, env: { ...env, ...options.env } });
const CREDS = () => ({ CALLCTL_APP_KEY: sandbox.appKey, CALLCTL_APP_SECRET: sandbox.appSecret });
const STACK = /\n\s+at [^\n]+\(/;

/** What the sandbox answers to a request, read directly (the ground truth of a read). */
async function served(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ http: number; data?: unknown; status?: string; code?: number; text: string }> {
  const res = await fetch(`${sandbox.url}${path}`, {
    method,
    headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: { data?: unknown; status?: string; code?: number } = {};
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: left to the assertions
  }
  return { http: res.status, text, ...json };
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const VERIFY = SEED.verifyPush;
let serial = 0;

describe.each(['(none)', ...VARIANT_NAMES])('variant %s', (variant) => {
  const authRejection = variant.startsWith('auth-40');
  const auth500 = variant === 'auth-500';

  beforeEach(() => {
    sandbox.setVariants(variant === '(none)' ? [] : [variant]);
    sandbox.resetFaults();
    token = sandbox.issueToken();
    env = {
      CALLCTL_BASE_URL: sandbox.url,
      CALLCTL_TOKEN: token,
      CALLCTL_APP_KEY: sandbox.appKey,
      CALLCTL_CONFIG_DIR: tempConfigDir(),
      XDG_STATE_HOME: tempDir('callctl-state-'),
    };
  });

  it.each([
    { argv: ['robots'], method: 'GET' as const, path: '/service/cloud/robot' },
    {
      argv: ['task', 'detail', SEED.debtTaskId],
      method: 'GET' as const,
      path: `/service/cloud/detail?TaskID=${SEED.debtTaskId}`,
    },
    {
      argv: ['task', 'detail', SEED.infoCheckTaskId],
      method: 'GET' as const,
      path: `/service/cloud/detail?TaskID=${SEED.infoCheckTaskId}`,
    },
    {
      argv: ['plan', 'status', SEED.planName],
      method: 'GET' as const,
      path: `/service/cloud/planstatus?PlanName=${SEED.planName}`,
    },
    {
      argv: ['plan', 'detail', SEED.planName],
      method: 'GET' as const,
      path: `/service/cloud/plandetail?PlanName=${SEED.planName}`,
    },
    { argv: ['workflow', 'list'], method: 'GET' as const, path: '/service/cloud/workflow/instancelist' },
    {
      argv: ['workflow', 'task-detail', SEED.workflowTaskId],
      method: 'POST' as const,
      path: '/service/cloud/workflow/taskdetail',
      body: { task_id: SEED.workflowTaskId },
    },
    {
      argv: [
        'workflow',
        'verify-push',
        '--workflow-id',
        VERIFY.workflowId,
        '--node-id',
        VERIFY.nodeId,
        '--callee',
        VERIFY.callee,
      ],
      method: 'POST' as const,
      path: '/service/cloud/workflow/apinoticeinfo',
      body: { workflow_id: VERIFY.workflowId, node_id: VERIFY.nodeId, callee: VERIFY.callee },
    },
  ])(
    '$argv: --json is exactly the data the sandbox serves, and the human rendering works',
    async ({ argv, method, path, body }) => {
      const truth = await served(method, path, body);
      const res = await cli([...argv, '--json']);
      expect(res.code, res.err).toBe(0);
      expect(JSON.parse(res.out)).toEqual(truth.data);
      expect(res.err).not.toMatch(/left out/);
      const human = await cli(argv);
      expect(human.code, human.err).toBe(0);
      expect(human.out.length).toBeGreaterThan(0);
    },
  );

  it('refusals show the status text the sandbox put in its envelope (exit 1, what to fix, no "run again")', async () => {
    const cases = [
      {
        argv: ['plan', 'status', 'NO-SUCH-PLAN'],
        truth: () => served('GET', '/service/cloud/planstatus?PlanName=NO-SUCH-PLAN'),
      },
      { argv: ['task', 'detail', 'T-NOPE'], truth: () => served('GET', '/service/cloud/detail?TaskID=T-NOPE') },
      {
        argv: [
          'workflow',
          'verify-push',
          '--workflow-id',
          VERIFY.workflowId,
          '--node-id',
          VERIFY.nodeId,
          '--callee',
          '+6200000000000',
        ],
        truth: () =>
          served('POST', '/service/cloud/workflow/apinoticeinfo', {
            workflow_id: VERIFY.workflowId,
            node_id: VERIFY.nodeId,
            callee: '+6200000000000',
          }),
      },
    ];
    for (const c of cases) {
      const truth = await c.truth();
      expect(truth.status && truth.status !== 'OK', truth.text).toBeTruthy();
      const res = await cli(c.argv);
      expect(res.code, res.err).toBe(1);
      expect(res.err).not.toMatch(STACK);
      expect(res.err.trim().split('\n')).toHaveLength(1);
      expect(oneLine(res.err)).toContain(oneLine(truth.status!));
      expect(res.err).toContain(`code ${truth.code}`);
      expect(res.err).not.toMatch(/unexpected answer|run again/);
    }
  });

  it('workflow list --all lists exactly the instances the sandbox holds, whatever page size it serves', async () => {
    const held = [...sandbox.state.workflows.keys()];
    expect(held).toHaveLength(SEED.workflowCount);
    const all = await cli(['workflow', 'list', '--all', '--json']);
    expect(all.code, all.err).toBe(0);
    expect((JSON.parse(all.out) as { lists: Array<{ workflow_id: string }> }).lists.map((w) => w.workflow_id)).toEqual(
      held,
    );
    const paged = await cli(['workflow', 'list', '--all', '--size', '10', '--json']);
    if (variant === 'page-ignored') {
      // The service repeats page 1: a clear error, never a loop or a silently short list.
      expect(paged.code).toBe(1);
      expect(paged.err).toMatch(/repeated instances already listed \(\d+ of count 32 held\)/);
    } else {
      expect(paged.code, paged.err).toBe(0);
      expect(
        (JSON.parse(paged.out) as { lists: Array<{ workflow_id: string }> }).lists.map((w) => w.workflow_id),
      ).toEqual(held);
    }
  });

  it('workflow update: every contact reaches the sandbox once; a cancelled workflow is refused with its text', async () => {
    const dir = tempDir();
    const base = 600_000 + ++serial * 10;
    const callees = [1, 2, 3].map((i) => `+62855${base + i}`);
    const file = writeIn(
      dir,
      'contacts.csv',
      `callee,platform,caseid,name\n${callees.map((c, i) => `${c},shop,K${base + i},Name ${i}`).join('\n')}\n`,
    );
    const before = sandbox.state.received.updates.get(SEED.workflowId)?.entries.length ?? 0;
    const res = await cli(['workflow', 'update', '--workflow-id', SEED.workflowId, '--csv', file, '--yes']);
    expect(res.code, res.err).toBe(0);
    const arrived = (sandbox.state.received.updates.get(SEED.workflowId)?.entries ?? [])
      .slice(before)
      .map((e) => e.callee);
    expect(arrived).toEqual(callees);

    const truth = await served('POST', '/service/cloud/workflow/updatedetails', {
      workflow_id: SEED.cancelledWorkflowId,
      details: [{ callee: callees[0], platform: 'shop', variables: {} }],
    });
    const refused = await cli([
      'workflow',
      'update',
      '--workflow-id',
      SEED.cancelledWorkflowId,
      '--csv',
      file,
      '--yes',
    ]);
    expect(refused.code, refused.err).toBe(1);
    expect(oneLine(refused.err)).toContain(oneLine(truth.status!));
    expect(refused.err).not.toMatch(STACK);
  });

  it('push and template send: sent once each, exit 0; an odd accepted answer is a warning, never a failure', async () => {
    const caller = `+62877${700_000 + ++serial}`;
    const push = await cli(['push', '--caller-id', caller, '--yes'], {
      env: { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken },
    });
    expect(push.code, push.err).toBe(0);
    expect(sandbox.state.received.pushes.filter((p) => p.caller_id === caller)).toHaveLength(1);
    const channelId = `+62866${800_000 + ++serial}`;
    const template = await cli(templateSend(channelId), {
      env: { CALLCTL_SIGN_KEY: sandbox.signKey, CALLCTL_SIGN_SECRET: sandbox.signSecret },
    });
    expect(template.code, template.err).toBe(0);
    expect(sandbox.state.received.templates.filter((t) => t.channel_id === channelId)).toHaveLength(1);
    const odd = variant === 'reach-odd-shape' || variant === 'reach-non-json';
    for (const r of [push, template]) {
      // Without a terminal a warning starts with its time, as a cron job's log keeps it.
      if (odd)
        expect(r.err).toMatch(
          /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z warning: .*(recorded as sent|taken as accepted)/m,
        );
      else expect(r.err).not.toMatch(/warning/);
    }

    // A CSV run, then a re-run asking to retry failures: nothing is sent twice.
    const callers = [1, 2, 3].map(() => `+62877${700_000 + ++serial}`);
    const file = writeIn(tempDir(), 'callers.csv', `caller_id\n${callers.join('\n')}\n`);
    const pushEnv = { env: { CALLCTL_FLEX_URL: sandbox.flexUrl, CALLCTL_PUSH_TOKEN: sandbox.pushToken } };
    const first = await cli(['push', '--csv', file, '--yes', '--json'], pushEnv);
    expect(first.code, first.err).toBe(0);
    const again = await cli(['push', '--csv', file, '--yes', '--retry-failed'], pushEnv);
    expect(again.code, again.err).toBe(0);
    for (const c of callers) expect(sandbox.state.received.pushes.filter((p) => p.caller_id === c)).toHaveLength(1);
  });

  it('auth login and auth status', async () => {
    const dir = tempConfigDir();
    const login = await runCli(
      ['--base-url', sandbox.url, 'auth', 'login', '--app-key', sandbox.appKey, '--app-secret-stdin'],
      { env: { CALLCTL_CONFIG_DIR: dir }, stdin: sandbox.appSecret },
    );
    const status = await runCli(['auth', 'status', '--json'], { env: { CALLCTL_CONFIG_DIR: dir } });
    const wrong = await runCli(
      ['--base-url', sandbox.url, 'auth', 'login', '--app-key', sandbox.appKey, '--app-secret-stdin'],
      { env: { CALLCTL_CONFIG_DIR: tempConfigDir() }, stdin: 'not-the-secret-123' },
    );
    for (const r of [login, status, wrong]) expect(r.err).not.toMatch(STACK);
    expect(wrong.err).not.toContain('not-the-secret-123');
    if (auth500) {
      // Service trouble at the token endpoint: exit 5 and "run again", not a credentials problem.
      expect(login.code).toBe(5);
      expect(login.err).toMatch(/code 500.*run again/);
      expect(wrong.code).toBe(5);
      expect(status.code).toBe(4); // nothing was stored
      return;
    }
    expect(login.code, login.err).toBe(0);
    expect(status.code, status.err).toBe(0);
    expect(JSON.parse(status.out)).toMatchObject({ accepted: true, tokenBaseUrl: sandbox.url });
    expect(wrong.code, wrong.err).toBe(4);
    expect(wrong.err).toMatch(/POST \/service\/cloud\/auth: .*code 40[13]/);
    if (authRejection) expect(wrong.err).toContain(`code ${variant.slice(5, 8)}`);
  });

  it('a rejected token: exit 4 with the service text; with credentials at hand, renewed once', async () => {
    sandbox.expireTokens();
    const truth = await served('GET', '/service/cloud/robot');
    expect([401, 403]).toContain(truth.code);
    const bare = await cli(['robots']);
    expect(bare.code, bare.err).toBe(4);
    if (truth.status) expect(oneLine(bare.err)).toContain(oneLine(truth.status));
    const before = sandbox.requests.length;
    const renewed = await cli(['robots', '--json'], { env: CREDS() });
    const paths = sandbox.requests.slice(before).map((r) => r.path);
    if (auth500) {
      expect(renewed.code).toBe(5);
      expect(paths.filter((p) => p === '/service/cloud/robot')).toHaveLength(1);
    } else {
      expect(renewed.code, renewed.err).toBe(0);
      expect(paths).toEqual(['/service/cloud/robot', '/service/cloud/auth', '/service/cloud/robot']);
    }
  });
});

describe('every error ends with one next step, said once', () => {
  beforeEach(() => {
    sandbox.setVariants([]);
    sandbox.resetFaults();
    token = sandbox.issueToken();
    env = {
      CALLCTL_BASE_URL: sandbox.url,
      CALLCTL_TOKEN: token,
      CALLCTL_APP_KEY: sandbox.appKey,
      CALLCTL_CONFIG_DIR: tempConfigDir(),
      XDG_STATE_HOME: tempDir('callctl-state-'),
    };
  });
  const once = (err: string, re: RegExp) => expect((err.match(re) ?? []).length, err).toBe(1);
  const file = () => writeIn(tempDir(), 'c.csv', `callee,platform\n+62855${900_000 + ++serial},shop\n`);

  it('transient (5xx after retries, network): exit 5, "run again" once, "after 4 attempts" once', async () => {
    const runs = [
      () => cli(['robots']),
      () => cli(['workflow', 'update', '--workflow-id', SEED.workflowId, '--csv', file(), '--yes']),
      () => cli(['robots'], { env: { CALLCTL_BASE_URL: 'http://127.0.0.1:1' } }),
      () =>
        cli(['workflow', 'update', '--workflow-id', SEED.workflowId, '--csv', file(), '--yes'], {
          env: { CALLCTL_BASE_URL: 'http://127.0.0.1:1' },
        }),
    ];
    for (const [i, run] of runs.entries()) {
      if (i < 2) sandbox.setFaults({ fail500: 4 });
      const res = await run();
      expect(res.code, res.err).toBe(5);
      once(res.err, /run (the same command )?again/g);
      once(res.err, /after \d+ attempts/g);
      expect(res.err).not.toMatch(/will not help/);
    }
  });

  it('a refusal that will recur (unknown or cancelled workflow): exit 1, what to fix once, never "run again"', async () => {
    for (const id of [SEED.cancelledWorkflowId, 'wf-no-such']) {
      const res = await cli(['workflow', 'update', '--workflow-id', id, '--csv', file(), '--yes']);
      expect(res.code, res.err).toBe(1);
      once(res.err, /will not help|until (this|that|it) is fixed/g);
      expect(res.err).not.toMatch(/run (the same command )?again/);
    }
  });
});
