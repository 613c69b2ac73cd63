import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir, type RunOptions } from '../helpers/cli.js';
import { envelope, startPeer, type Peer, type PeerAnswer, type PeerRequest } from '../helpers/peer.js';
import { templatePeerEnv, templateSend } from '../helpers/template-send.js';
import { tempDir, writeIn } from '../reach/helpers.js';

/**
 * Answers the spec allows (or leaves open) that the sandbox does not give by default, served by a
 * listener the test starts: each test states what a real service may answer and what callctl
 * must do with it.
 */

const peers: Peer[] = [];
afterEach(async () => {
  for (const p of peers.splice(0)) await p.close();
});
async function peer(answer: (req: PeerRequest) => PeerAnswer | Promise<PeerAnswer>): Promise<Peer> {
  const p = await startPeer(answer);
  peers.push(p);
  return p;
}

const TOKEN = 'tok-spec-answers-0001';
const run = (p: Peer, argv: string[], options: RunOptions = {}) =>
  runCli(argv, {
    ...options,
    env: {
      CALLCTL_BASE_URL: p.url,
      CALLCTL_TOKEN: TOKEN,
      CALLCTL_CONFIG_DIR: tempConfigDir(),
      XDG_STATE_HOME: tempConfigDir(),
      ...options.env,
    },
  });
const CREDS = { CALLCTL_APP_KEY: 'app-key-1', CALLCTL_APP_SECRET: 'app-secret-very-1' };
const robot = { RobotMethod: 'single', RobotID: 'r-1', RobotName: 'A', Voice: 'female', Tone: 'Polite' };
const instance = (i: number) => ({
  workflow_id: `W-${i}`,
  name: `wf ${i}`,
  template_name: 't',
  start_time: '2026-11-01T08:00:00Z',
  end_time: '2026-11-01T09:00:00Z',
  total: i,
  status: 'finished',
  create_time: '2026-11-01T07:00:00Z',
});

describe('the envelope: the service text is status, with its code and the endpoint', () => {
  it.each([
    ['HTTP 200 with code 404', 200, envelope(null, 404, 'plan not found: P-9')],
    ['HTTP 404 with the envelope', 404, envelope(null, 404, 'plan not found: P-9')],
    ['HTTP 200 with code 200 but status not OK', 200, envelope(null, 200, 'plan not found: P-9')],
  ])('%s: exit 1, the status text on stderr, no schema complaint', async (_what, status, body) => {
    const p = await peer(() => ({ status, body }));
    const res = await run(p, ['plan', 'status', 'P-9']);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(
      /^error: GET \/service\/cloud\/planstatus: .*code \d+: plan not found: P-9; .*will not help/,
    );
    expect(res.err).not.toMatch(/unexpected|schema|run again/);
    expect(res.err.trim().split('\n')).toHaveLength(1);
  });

  it('a message beside status is shown too; status comes first', async () => {
    const p = await peer(() => ({
      body: { ...envelope(null, 422, 'invalid PlanName'), message: 'PlanName has a space' },
    }));
    const res = await run(p, ['plan', 'status', 'P 9']);
    expect(res.code).toBe(1);
    expect(res.err).toContain('code 422: invalid PlanName (PlanName has a space)');
  });

  it("verify-push's 200 exception variant and the list update's 200 error variant show the service's text", async () => {
    const p = await peer(() => ({
      body: { code: 200, status: 'no push record for this callee in the last three months' },
    }));
    const res = await run(p, [
      'workflow',
      'verify-push',
      '--workflow-id',
      'W-1',
      '--node-id',
      'N-1',
      '--callee',
      '+6281234567001',
    ]);
    expect(res.code).toBe(1);
    expect(res.err).toContain(
      'POST /service/cloud/workflow/apinoticeinfo: code 200: no push record for this callee in the last three months',
    );
    const q = await peer(() => ({ body: { code: 500100, status: 'workflow W-1 is finished', data: null } }));
    const task = await run(q, ['workflow', 'task-detail', 'T-1']);
    expect(task.code).toBe(1);
    expect(task.err).toContain('code 500100: workflow W-1 is finished');
  });

  it('a body that is not an envelope says so; its first bytes (redacted) only under --verbose', async () => {
    const p = await peer(() => ({
      body: `<html>proxy says no; ${TOKEN}</html>`,
      headers: { 'content-type': 'text/html' },
    }));
    const quiet = await run(p, ['robots']);
    expect(quiet.code).toBe(1);
    expect(quiet.err).toMatch(
      /HTTP 200, and the answer is not the service's envelope \(not JSON\) \(run with --verbose/,
    );
    expect(quiet.err).not.toContain('<html>');
    const loud = await run(p, ['robots', '--verbose']);
    expect(loud.code).toBe(1);
    expect(loud.err).toMatch(/it begins: "<html>proxy says no; \*\*\*<\/html>"/);
    expect(loud.err).not.toContain(TOKEN);
    const json = await peer(() => ({ body: { ok: true } }));
    const odd = await run(json, ['robots']);
    expect(odd.err).toContain('JSON without code or status');
  });
});

describe('token rejection: 401 and 403, as HTTP status or as envelope code', () => {
  const rejections: Array<[string, PeerAnswer]> = [
    ['HTTP 401', { status: 401, body: envelope(null, 401, 'token expired') }],
    ['HTTP 403', { status: 403, body: envelope(null, 403, 'token expired') }],
    ['code 401', { body: envelope(null, 401, 'token expired') }],
    ['code 403', { body: envelope(null, 403, 'token expired') }],
  ];

  it.each(rejections)('%s without credentials: exit 4 with the service text, one request', async (_what, rejection) => {
    const p = await peer(() => rejection);
    const res = await run(p, ['robots']);
    expect(res.code).toBe(4);
    expect(res.err).toMatch(/code 40[13]: token expired: the token (in CALLCTL_TOKEN )?was rejected/);
    expect(p.requests).toHaveLength(1);
  });

  it.each(rejections)('%s with credentials: renews once and repeats once', async (_what, rejection) => {
    let issued = 0;
    const p = await peer((r) => {
      if (r.path === '/service/cloud/auth') return { body: envelope({ token: `tok-new-${++issued}-abcdef` }) };
      return r.headers.authorization === `Token ${TOKEN}` ? rejection : { body: envelope([robot]) };
    });
    const res = await run(p, ['robots', '--json'], { env: CREDS });
    expect(res.code, res.err).toBe(0);
    expect(p.requests.map((r) => r.path)).toEqual([
      '/service/cloud/robot',
      '/service/cloud/auth',
      '/service/cloud/robot',
    ]);
  });

  it.each(rejections)('%s again after renewing: exit 4, no loop', async (_what, rejection) => {
    const p = await peer((r) =>
      r.path === '/service/cloud/auth' ? { body: envelope({ token: 'tok-new-abcdef' }) } : rejection,
    );
    const res = await run(p, ['robots'], { env: CREDS });
    expect(res.code).toBe(4);
    expect(res.err).toContain('token expired');
    expect(p.requests).toHaveLength(3);
  });

  it.each(rejections)('%s at the token endpoint: login exits 4 with the service text', async (_what, rejection) => {
    const p = await peer(() => rejection);
    const res = await run(p, ['auth', 'login', '--app-key', 'k-1', '--app-secret-stdin'], {
      stdin: 'secret-value-xyz',
    });
    expect(res.code).toBe(4);
    expect(res.err).toMatch(
      /^error: POST \/service\/cloud\/auth: .*code 40[13]: token expired: the service rejected the APPKey \(from --app-key\) and APPSecret/,
    );
    expect(res.err).not.toContain('secret-value-xyz');
  });

  it('code 500 from the token endpoint is service trouble, not credentials: retried, then exit 5 "run again"', async () => {
    const p = await peer(() => ({ body: envelope(null, 500, 'auth backend down') }));
    const res = await run(p, ['auth', 'login', '--app-key', 'k-1', '--app-secret-stdin'], {
      stdin: 'secret-value-xyz',
    });
    expect(res.code).toBe(5);
    expect(res.err).toMatch(/code 500: auth backend down after 4 attempts; this may pass by itself: run again later/);
    expect(p.requests).toHaveLength(4);
    expect(res.io.slept).toHaveLength(3);
  });
});

describe('what else a real service may answer', () => {
  it('code as text ("200", "403"): read as the number it names', async () => {
    const ok = await peer(() => ({ body: { data: [robot], status: 'OK', code: '200' } }));
    expect((await run(ok, ['robots'])).code).toBe(0);
    const rejected = await peer(() => ({ body: { data: null, status: 'token expired', code: '403' } }));
    const res = await run(rejected, ['robots']);
    expect(res.code).toBe(4);
    expect(res.err).toContain('code 403: token expired');
  });

  it('HTTP 401 with a body that is not JSON (a gateway): the token was rejected, exit 4', async () => {
    const p = await peer(() => ({
      status: 401,
      body: '<html>401 Authorization Required</html>',
      headers: { 'content-type': 'text/html' },
    }));
    const res = await run(p, ['robots']);
    expect(res.code).toBe(4);
    expect(res.err).toMatch(/HTTP 401: the token (in CALLCTL_TOKEN )?was rejected/);
  });

  it('code 429 in an HTTP 200 envelope with Retry-After: waits as told, retries, then exit 5', async () => {
    const p = await peer(() => ({ body: envelope(null, 429, 'slow down'), headers: { 'retry-after': '2' } }));
    const res = await run(p, ['robots']);
    expect(res.code).toBe(5);
    expect(res.io.slept).toEqual([2000, 2000, 2000]);
    expect(res.err).toMatch(/code 429: slow down after 4 attempts; this may pass by itself: run again later/);
  });

  it('status "OK" with a code other than 200, or code 200 with an empty status: a refusal, not a success', async () => {
    for (const body of [envelope([robot], 201, 'OK'), envelope([robot], 200, '')]) {
      const p = await peer(() => ({ body }));
      const res = await run(p, ['robots']);
      expect(res.code, JSON.stringify(body)).toBe(1);
    }
  });
});

describe('workflow list --all pages by count', () => {
  const list = (total: number, cap: number, ignorePage = false) =>
    peer((r) => {
      const size = Math.min(Number(r.query.get('size') ?? 10), cap);
      const page = ignorePage ? 1 : Number(r.query.get('page') ?? 1);
      const items = Array.from({ length: total }, (_, i) => instance(i + 1)).slice((page - 1) * size, page * size);
      return { body: envelope({ lists: items, count: total }) };
    });

  it('a service serving fewer items than asked: every instance, exactly once', async () => {
    const p = await list(12, 5);
    const res = await run(p, ['workflow', 'list', '--all', '--json']);
    expect(res.code, res.err).toBe(0);
    const data = JSON.parse(res.out) as { lists: Array<{ workflow_id: string }>; count: number };
    expect(data.lists.map((w) => w.workflow_id)).toEqual(Array.from({ length: 12 }, (_, i) => `W-${i + 1}`));
    expect(p.requests).toHaveLength(3);
  });

  it('a service that ignores page: a clear error, not a loop and not a short list', async () => {
    const p = await list(12, 5, true);
    const res = await run(p, ['workflow', 'list', '--all']);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/page 2 repeated instances already listed \(5 of count 12 held\)/);
    expect(p.requests).toHaveLength(2);
  });

  it('a count larger than what the service holds: stops at the first empty page', async () => {
    const p = await peer((r) => ({
      body: envelope({ lists: r.query.get('page') === '1' ? [instance(1), instance(2)] : [], count: 40 }),
    }));
    const res = await run(p, ['workflow', 'list', '--all', '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.out).lists).toHaveLength(2);
    expect(p.requests).toHaveLength(2);
  });
});

describe('lenient where the spec is loose', () => {
  it('values outside the enumerations and empty ones are shown as they are; one odd record hides nothing', async () => {
    const robots = [
      robot,
      { ...robot, RobotID: 'r-2', Tone: 'Gentle', Voice: '', RobotMethod: 'cluster' },
      { RobotMethod: 'group', RobotID: 'r-3', Voice: null },
    ];
    const p = await peer(() => ({ body: envelope(robots) }));
    const res = await run(p, ['robots']);
    expect(res.code, res.err).toBe(0);
    for (const v of ['r-1', 'r-2', 'r-3', 'Gentle', 'cluster']) expect(res.out).toContain(v);
  });

  it('plan and task statuses outside the lists', async () => {
    const p = await peer((r) =>
      r.path.endsWith('planstatus')
        ? { body: envelope({ PlanName: 'P', PlanStatus: 'archived' }) }
        : {
            body: envelope({
              PlanName: 'P',
              PlanDetails: [{ Rounds: '1', TaskName: 'P-R1', TaskID: 'T1', Status: 'on-hold' }],
            }),
          },
    );
    const status = await run(p, ['plan', 'status', 'P']);
    expect(status.code, status.err).toBe(0);
    expect(status.out).toContain('archived');
    const detail = await run(p, ['plan', 'detail', 'P']);
    expect(detail.code, detail.err).toBe(0);
    expect(detail.out).toContain('on-hold');
  });

  it('verify-push: call.task_id and call.call_id may be absent (no required mark)', async () => {
    const data = {
      workflow_id: 'W-1',
      workflow_name: 'w',
      node_id: 'N-1',
      node_name: 'n',
      callee: { callee_number: '+6281234567001' },
      custom_attribute: {},
      call: { intention: 'A', robot_id: 'r-1' },
    };
    const p = await peer(() => ({ body: envelope(data) }));
    const res = await run(p, [
      'workflow',
      'verify-push',
      '--workflow-id',
      'W-1',
      '--node-id',
      'N-1',
      '--callee',
      '+6281234567001',
      '--json',
    ]);
    expect(res.code, res.err).toBe(0);
    expect(JSON.parse(res.out).call.intention).toBe('A');
  });

  it.each([
    [3, '3'],
    [{ label: 'A', score: 0.9 }, '{"label":"A","score":0.9}'],
    [null, ''],
    [['A', 'B'], '["A","B"]'],
  ])(
    'verify-push: call.intention is required with no type in the spec: %j is shown as it comes',
    async (intention, shown) => {
      const data = {
        workflow_id: 'W-1',
        workflow_name: 'w',
        node_id: 'N-1',
        node_name: 'n',
        callee: { callee_number: '+6281234567001' },
        custom_attribute: {},
        call: { intention, robot_id: 'r-1' },
      };
      const p = await peer(() => ({ body: envelope(data) }));
      const argv = [
        'workflow',
        'verify-push',
        '--workflow-id',
        'W-1',
        '--node-id',
        'N-1',
        '--callee',
        '+6281234567001',
      ];
      const json = await run(p, [...argv, '--json']);
      expect(json.code, json.err).toBe(0);
      expect(JSON.parse(json.out).call.intention).toEqual(intention);
      const piped = await run(p, argv);
      expect(piped.code, piped.err).toBe(0);
      expect(piped.out).toContain(`intention\t${shown}\n`);
      // Still required: an answer without it is reported with its path.
      const { intention: _gone, ...without } = data.call;
      void _gone;
      const q = await peer(() => ({ body: envelope({ ...data, call: without }) }));
      const missing = await run(q, [...argv, '--json']);
      expect(missing.code).toBe(1);
      expect(missing.err).toContain('call.intention');
    },
  );
});

describe('a token belongs to the base URL that issued it', () => {
  it('the profile token is not sent to another base URL; the error names both and how to log in', async () => {
    const issuer = await peer((r) =>
      r.path === '/service/cloud/auth'
        ? { body: envelope({ token: 'tok-issued-by-a-123' }) }
        : { body: envelope([robot]) },
    );
    const other = await peer((r) =>
      r.path === '/service/cloud/auth'
        ? { body: envelope({ token: 'tok-issued-by-b-456' }) }
        : r.headers.authorization === 'Token tok-issued-by-b-456'
          ? { body: envelope([robot]) }
          : { body: envelope(null, 401, 'unknown token') },
    );
    const dir = tempConfigDir();
    const env = { CALLCTL_CONFIG_DIR: dir };
    const login = await runCli(['--base-url', issuer.url, 'auth', 'login', '--app-key', 'k-1', '--app-secret-stdin'], {
      env,
      stdin: 'secret-value-xyz',
    });
    expect(login.code, login.err).toBe(0);
    expect((await runCli(['robots'], { env })).code).toBe(0);
    for (const res of [
      await runCli(['--base-url', other.url, 'robots'], { env }),
      await runCli(['robots'], { env: { ...env, CALLCTL_BASE_URL: other.url } }),
    ]) {
      expect(res.code).toBe(4);
      expect(res.err).toContain(`holds a token for ${issuer.url}, not for ${other.url}`);
      expect(res.err).toContain(`callctl --base-url ${other.url}`);
    }
    expect(other.requests).toHaveLength(0);
    // A trailing slash names the same service.
    expect((await runCli(['--base-url', `${issuer.url}/`, 'robots'], { env })).code).toBe(0);
    // Credentials for the other URL: a token of its own, in memory.
    const withCreds = await runCli(['--base-url', other.url, 'robots'], { env: { ...env, ...CREDS } });
    expect(withCreds.code, withCreds.err).toBe(0);
    expect(other.requests.map((r) => r.path)).toEqual(['/service/cloud/auth', '/service/cloud/robot']);
    expect(other.requests.every((r) => r.headers.authorization !== 'Token tok-issued-by-a-123')).toBe(true);
  });

  it('auth status asks the service; exit 4 when it rejects the token; --offline keeps the local answer', async () => {
    let valid = true;
    const p = await peer(() => (valid ? { body: envelope([robot]) } : { body: envelope(null, 401, 'token expired') }));
    const ok = await run(p, ['auth', 'status', '--json']);
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ accepted: true, loggedIn: true });
    expect(p.on('/service/cloud/robot')).toHaveLength(1);
    valid = false;
    const rejected = await run(p, ['auth', 'status']);
    expect(rejected.code).toBe(4);
    expect(rejected.err).toContain('token expired');
    const offline = await run(p, ['auth', 'status', '--offline']);
    expect(offline.code).toBe(0);
    expect(p.requests).toHaveLength(2);
  });
});

describe('push and template send: an accepted request is never "failed"', () => {
  const odd: Array<[string, PeerAnswer]> = [
    ['body null, no show_err, no trace_id', { body: { code: 200, message: 'ok', timestamp: 1, body: null } }],
    ['code 0 and nothing else', { body: { code: 0 } }],
    ['no code at all', { body: { message: 'queued' } }],
    ['a body that is not JSON', { body: 'OK', headers: { 'content-type': 'text/plain' } }],
    ['an empty body', { body: '' }],
  ];

  it.each(odd)('push answered HTTP 200 with %s: sent, with a warning; exit 0', async (_what, answer) => {
    const p = await peer(() => answer);
    const res = await runCli(['push', '--caller-id', '+6281234567001', '--yes'], {
      env: {
        CALLCTL_FLEX_URL: p.url,
        CALLCTL_PUSH_TOKEN: 'ptk-live-123456',
        CALLCTL_CONFIG_DIR: tempConfigDir(),
        XDG_STATE_HOME: tempConfigDir(),
      },
    });
    expect(res.code, res.err).toBe(0);
    expect(res.err).toMatch(/warning: .*(recorded as sent|taken as accepted)/);
    expect(p.requests).toHaveLength(1);
  });

  it.each(odd)('template send answered HTTP 200 with %s: sent, with a warning; exit 0', async (_what, answer) => {
    const p = await peer(() => answer);
    const res = await runCli(templateSend(), { env: templatePeerEnv(p.url) });
    expect(res.code, res.err).toBe(0);
    expect(res.err).toMatch(/warning: .*(recorded as sent|taken as accepted)/);
    expect(p.requests).toHaveLength(1);
  });

  it('a CSV run of odd accepted answers: all rows sent; a re-run with --retry-failed sends nothing again', async () => {
    let n = 0;
    const p = await peer(() => odd[n++ % odd.length]![1]);
    const dir = tempDir();
    const file = writeIn(
      dir,
      'callers.csv',
      'caller_id\n+628100000001\n+628100000002\n+628100000003\n+628100000004\n+628100000005\n',
    );
    const env = {
      CALLCTL_FLEX_URL: p.url,
      CALLCTL_PUSH_TOKEN: 'ptk-live-123456',
      CALLCTL_CONFIG_DIR: tempConfigDir(),
      XDG_STATE_HOME: tempConfigDir(),
    };
    const first = await runCli(['push', '--csv', file, '--yes', '--json'], { env });
    expect(first.code, first.err).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({ sent: 5, failed: 0, uncertain: 0 });
    const again = await runCli(['push', '--csv', file, '--yes', '--retry-failed', '--resend-uncertain'], { env });
    expect(again.code, again.err).toBe(0);
    expect(p.requests).toHaveLength(5);
  });

  it('a push token is sent only to the flex-route address it was set for', async () => {
    const a = await peer(() => ({
      body: { code: 200, message: 'ok', show_err: false, timestamp: 1, body: {}, trace_id: 't-1' },
    }));
    const b = await peer(() => ({
      body: { code: 200, message: 'ok', show_err: false, timestamp: 1, body: {}, trace_id: 't-2' },
    }));
    const env = { CALLCTL_CONFIG_DIR: tempConfigDir(), XDG_STATE_HOME: tempConfigDir(), CALLCTL_FLEX_URL: a.url };
    expect((await runCli(['config', 'set', 'push-token', '--stdin'], { env, stdin: 'ptk-profile-778899' })).code).toBe(
      0,
    );
    expect((await runCli(['push', '--caller-id', '+6281234567001', '--yes'], { env })).code).toBe(0);
    const elsewhere = await runCli(['push', '--caller-id', '+6281234567001', '--yes'], {
      env: { ...env, CALLCTL_FLEX_URL: b.url },
    });
    expect(elsewhere.code).toBe(4);
    expect(elsewhere.err).toContain(`push-token is for ${a.url}, not for ${b.url}`);
    const byFlag = await runCli(['push', '--caller-id', '+6281234567001', '--flex-url', b.url, '--yes'], { env });
    expect(byFlag.code).toBe(4);
    expect(b.requests).toHaveLength(0);
    expect(a.requests).toHaveLength(1);
  });
});
