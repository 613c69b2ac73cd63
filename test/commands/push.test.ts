import { describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { runCli, type RunOptions } from '../helpers/cli.js';
import { received, tempDir, useSendSandbox, writeIn } from '../reach/helpers.js';

let sandbox: Sandbox;
let env: Record<string, string>;
const LIVE = '/flex/api/push/';
const TEST = '/flex-test/api/push/';

useSendSandbox('push', (s, e) => {
  sandbox = s;
  env = e;
});

const cli = (argv: string[], options: RunOptions = {}) =>
  runCli(['push', ...argv], { ...options, env: { ...env, ...options.env } });

describe('push', () => {
  it('places one call with caller_id, client_name and variables, and shows the answer', async () => {
    const dir = tempDir();
    const vars = writeIn(dir, 'vars.json', JSON.stringify({ debt_amount: '1500000', due_date: '2026-12-01' }));
    const r = await cli([
      '--caller-id',
      '+6281234567001',
      '--client-name',
      'Budi',
      '--vars-file',
      vars,
      '--var',
      'due_date=2026-12-05',
      '--yes',
    ]);
    expect(r.code, r.err).toBe(0);
    const [push] = sandbox.state.received.pushes;
    expect(sandbox.state.received.pushes).toHaveLength(1);
    expect(push).toMatchObject({
      environment: 'live',
      caller_id: '+6281234567001',
      client_name: 'Budi',
      variables: { debt_amount: '1500000', due_date: '2026-12-05' },
    });
    expect(r.out).toContain(`trace_id\t${push!.trace_id}`);
    expect(r.out).toMatch(/^code\t200$/m);
    expect(r.out).toMatch(/^message\tsuccess$/m);
  });

  it('--json prints the service answer object', async () => {
    const r = await cli(['--caller-id', '+6281234567002', '--yes', '--json']);
    expect(r.code, r.err).toBe(0);
    const answer = JSON.parse(r.out);
    expect(answer).toMatchObject({
      code: 200,
      message: 'success',
      show_err: false,
      trace_id: sandbox.state.received.pushes[0]!.trace_id,
    });
    expect(typeof answer.timestamp).toBe('number');
    expect(answer.body).toBeTypeOf('object');
  });

  it('--test goes to the test address with the test token', async () => {
    const r = await cli(['--test', '--caller-id', '+6281234567003', '--yes'], {
      env: { CALLCTL_FLEX_TEST_URL: sandbox.flexTestUrl, CALLCTL_PUSH_TEST_TOKEN: sandbox.pushTestToken },
    });
    expect(r.code, r.err).toBe(0);
    expect(received(sandbox, TEST)).toHaveLength(1);
    expect(received(sandbox, LIVE)).toHaveLength(0);
    expect(sandbox.state.received.pushes[0]!.environment).toBe('test');
    expect(r.err).toContain('(test)');
  });

  it('--test without a test address is a usage error naming the ways to give one', async () => {
    const r = await cli(['--test', '--caller-id', '+6281234567003', '--yes']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/flex-test-url.*--flex-url.*CALLCTL_FLEX_TEST_URL/);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('a missing caller id is a usage error (2) and nothing is sent', async () => {
    const r = await cli(['--var', 'debt_amount=10', '--yes']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--caller-id/);
    expect(sandbox.requests).toHaveLength(0);
  });

  it.each([
    ['not JSON', '{"debt_amount": '],
    ['an array', '["x"]'],
    ['a number value', '{"debt_amount": 1500000}'],
  ])('a variables file holding %s is invalid input (3), nothing sent', async (_what, text) => {
    const vars = writeIn(tempDir(), 'vars.json', text);
    const r = await cli(['--caller-id', '+6281234567004', '--vars-file', vars, '--yes']);
    expect(r.code, r.err).toBe(3);
    expect(r.err).toMatch(/vars\.json|debt_amount/);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('a missing variables file is invalid input (3)', async () => {
    const r = await cli(['--caller-id', '+6281234567004', '--vars-file', '/nonexistent/vars.json', '--yes']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('ENOENT');
  });

  it('a bad --var is a usage error (2), nothing sent', async () => {
    const noEq = await cli(['--caller-id', '+6281234567005', '--var', 'debt_amount', '--yes']);
    expect(noEq.code).toBe(2);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('debt_amount is sent as given: the spec makes it a string and gives it no format', async () => {
    for (const [caller, amount] of [
      ['+6281234567015', '1.500.000'],
      ['+6281234567016', 'Rp 1,5 jt'],
    ] as const) {
      const r = await cli(['--caller-id', caller, '--var', `debt_amount=${amount}`, '--yes']);
      expect(r.code, r.err).toBe(0);
    }
    expect(sandbox.state.received.pushes.map((p) => p.variables.debt_amount)).toEqual(['1.500.000', 'Rp 1,5 jt']);
  });

  it('a wrong push token exits 1 with the service message and trace id, and never prints the token', async () => {
    const wrong = 'wrong-token-5a9c1e77';
    const r = await cli(['--caller-id', '+6281234567006', '--yes', '--verbose', '--json'], {
      env: { CALLCTL_PUSH_TOKEN: wrong },
    });
    expect(r.code).toBe(1);
    expect(r.err).toContain('unknown push token for the live environment');
    expect(r.err).toMatch(/trace_id [0-9a-f]{16}/);
    expect(r.err).toContain(`${sandbox.flexUrl}/api/push/***`);
    // The request did reach the sandbox, with the token in its path; callctl printed it nowhere.
    expect(received(sandbox, LIVE + wrong)).toHaveLength(1);
    expect(r.out + r.err).not.toContain(wrong);
    expect(r.out + r.err).not.toContain(encodeURIComponent(wrong));
    const error = JSON.parse(r.err.trim().split('\n').at(-1)!).error;
    expect(error).toMatchObject({ kind: 'service', serviceCode: 404, httpStatus: 404 });
  });

  it('--verbose shows the exchange with the token redacted', async () => {
    const r = await cli(['--caller-id', '+6281234567007', '--yes', '--verbose']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`> POST ${sandbox.flexUrl}/api/push/***`);
    expect(r.err).toContain('"caller_id":"+6281234567007"');
    expect(r.out + r.err).not.toContain(sandbox.pushToken);
  });

  it('the token can come from stdin, and from the profile', async () => {
    const fromStdin = await cli(['--caller-id', '+6281234567008', '--push-token-stdin', '--yes'], {
      env: { CALLCTL_PUSH_TOKEN: '' },
      stdin: `${sandbox.pushToken}\n`,
    });
    expect(fromStdin.code, fromStdin.err).toBe(0);
    const stored = await runCli(['config', 'set', 'push-token', '--stdin'], { env, stdin: sandbox.pushToken });
    expect(stored.code, stored.err).toBe(0);
    const fromProfile = await cli(['--caller-id', '+6281234567009', '--yes'], { env: { CALLCTL_PUSH_TOKEN: '' } });
    expect(fromProfile.code, fromProfile.err).toBe(0);
    expect(sandbox.state.received.pushes.map((p) => p.caller_id)).toEqual(['+6281234567008', '+6281234567009']);
  });

  it('without a token it is a usage error naming stdin, the environment and config set', async () => {
    const r = await cli(['--caller-id', '+6281234567010', '--yes'], { env: { CALLCTL_PUSH_TOKEN: '' } });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--push-token-stdin.*CALLCTL_PUSH_TOKEN.*config set push-token/);
  });

  it('--dry-run prints the exact request with the token redacted and sends nothing', async () => {
    const r = await cli([
      '--caller-id',
      '+6281234567011',
      '--client-name',
      'Sari',
      '--var',
      'debt_amount=99.50',
      '--dry-run',
    ]);
    expect(r.code, r.err).toBe(0);
    expect(sandbox.requests).toHaveLength(0);
    expect(r.out).toContain(`POST ${sandbox.flexUrl}/api/push/***`);
    expect(r.out).toContain('{"caller_id":"+6281234567011","client_name":"Sari","variables":{"debt_amount":"99.50"}}');
    expect(r.out + r.err).not.toContain(sandbox.pushToken);
    expect(r.err).toContain('nothing was sent');
    const json = await cli(['--caller-id', '+6281234567011', '--dry-run', '--json']);
    expect(JSON.parse(json.out).requests[0]).toMatchObject({
      method: 'POST',
      url: `${sandbox.flexUrl}/api/push/***`,
      body: { caller_id: '+6281234567011', variables: {} },
    });
    expect(sandbox.requests).toHaveLength(0);
  });

  it("--dry-run shows the headers the real request goes out with (the transport's defaults, from one place)", async () => {
    const argv = ['--caller-id', '+6281234567013', '--var', 'debt_amount=7'];
    const dry = await cli([...argv, '--dry-run', '--json']);
    expect(dry.code, dry.err).toBe(0);
    const shown = JSON.parse(dry.out).requests[0].headers as Record<string, string>;
    expect(Object.keys(shown)).toEqual(expect.arrayContaining(['user-agent', 'accept', 'content-type']));
    const sent = await cli([...argv, '--yes']);
    expect(sent.code, sent.err).toBe(0);
    const [request] = received(sandbox, '/flex/api/push/');
    for (const [name, value] of Object.entries(shown)) expect(request!.headers[name], name).toBe(value);
  });

  it('without a terminal it needs --yes (2); on a terminal it asks, and a no sends nothing (130)', async () => {
    const noTty = await cli(['--caller-id', '+6281234567012']);
    expect(noTty.code).toBe(2);
    expect(noTty.err).toContain('--yes');
    const declined = await cli(['--caller-id', '+6281234567012', '--var', 'debt_amount=5'], {
      tty: true,
      answers: [false],
    });
    expect(declined.code).toBe(130);
    expect(declined.err).toContain('+6281234567012');
    expect(declined.err).toContain('"debt_amount":"5"');
    expect(declined.io.asked).toEqual(['Place this call?']);
    expect(sandbox.requests).toHaveLength(0);
    const accepted = await cli(['--caller-id', '+6281234567012'], { tty: true, answers: [true] });
    expect(accepted.code, accepted.err).toBe(0);
    expect(sandbox.state.received.pushes).toHaveLength(1);
    // The same person again: the ledger keeps the call back, so nothing is asked (#36 item 8: it
    // asked "Place this call?", then said nothing was sent).
    const kept = await cli(['--caller-id', '+6281234567012'], { tty: true, answers: [true] });
    expect(kept.code, kept.err).toBe(0);
    expect(kept.io.asked).toEqual([]);
    expect(kept.err).not.toContain('About to place a call');
    expect(kept.err).toMatch(/nothing sent: \+6281234567012 was already reached through push live/);
    expect(sandbox.state.received.pushes).toHaveLength(1);
  });

  it('never twice: a connection dropped after the body was read exits 5, says the call may have been placed, one request', async () => {
    sandbox.setFaults({ dropAfterBody: 1 });
    const r = await cli(['--caller-id', '+6281234567013', '--yes']);
    expect(r.code).toBe(5);
    expect(r.err).toContain('the call MAY HAVE BEEN PLACED');
    expect(r.err).toContain('caller_id +6281234567013');
    expect(r.err).not.toContain(sandbox.pushToken);
    expect(received(sandbox, LIVE)).toHaveLength(1);
    expect(received(sandbox, LIVE)[0]!.outcome).toBe('dropped-after-body');
  });

  it('a refused connection says the call was not placed (5)', async () => {
    const closed = await startSandbox();
    const url = closed.flexUrl;
    await closed.close();
    const r = await cli(['--caller-id', '+6281234567014', '--yes'], { env: { CALLCTL_FLEX_URL: url } });
    expect(r.code).toBe(5);
    expect(r.err).toContain('the call was not placed');
  });
});
