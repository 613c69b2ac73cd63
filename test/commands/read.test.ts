import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { SEED, type Sandbox } from '../../src/sandbox/server.js';
import { robotListSchema } from '../../src/schemas/robot.js';
import { callingTaskSchema } from '../../src/schemas/task.js';
import { runCli, tempConfigDir, type RunOptions } from '../helpers/cli.js';
import { SEEDED_VERIFY_PUSH, useSandbox } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let token: string;
let env: Record<string, string>;

const fixture = useSandbox();
beforeEach(() => ({ sandbox, token, env } = fixture));

const cli = (argv: string[], options: RunOptions = {}) => runCli(argv, { ...options, env: { ...env, ...options.env } });
const ANSI = /\u001b\[/;

/** Every read command, with what its --json must equal and a value its human output must show. */
const reads: Array<{ argv: string[]; shows: string }> = [
  { argv: ['robots'], shows: SEED.robotIds[0]! },
  { argv: ['task', 'detail', SEED.debtTaskId], shows: SEED.debtTaskId },
  { argv: ['task', 'detail', SEED.infoCheckTaskId], shows: SEED.infoCheckTaskId },
  { argv: ['plan', 'status', SEED.planName], shows: 'finished' },
  { argv: ['plan', 'detail', SEED.planName], shows: `${SEED.planName}-R2` },
  { argv: ['workflow', 'list'], shows: SEED.workflowId },
  { argv: ['workflow', 'list', '--all', '--size', '7'], shows: SEED.cancelledWorkflowId },
  {
    argv: SEEDED_VERIFY_PUSH,
    shows: SEED.verifyPush.callee,
  },
  { argv: ['workflow', 'task-detail', SEED.workflowTaskId], shows: SEED.workflowTaskId },
];

describe('read commands in three renderings', () => {
  it.each(reads)('$argv', async ({ argv, shows }) => {
    const json = await cli([...argv, '--json']);
    expect(json.code).toBe(0);
    const data = JSON.parse(json.out);
    expect(JSON.stringify(data)).toContain(shows);

    const piped = await cli(argv);
    expect(piped.code).toBe(0);
    expect(piped.out).toContain(shows);
    expect(piped.out).not.toMatch(ANSI);
    expect(piped.out).not.toMatch(/[┌│─]/);
    for (const line of piped.out.split('\n').filter(Boolean)) expect(line.includes('\t') || line === '').toBe(true);

    const tty = await cli(argv, { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.out).toContain(shows);
    expect(tty.out).toMatch(ANSI);
  });

  it('--json is exactly the envelope data', async () => {
    const res = await fetch(`${sandbox.url}/service/cloud/detail?TaskID=${SEED.debtTaskId}`, {
      headers: { authorization: `Token ${token}` },
    });
    const envelope = (await res.json()) as { data: unknown };
    const json = await cli(['task', 'detail', SEED.debtTaskId, '--json']);
    expect(JSON.parse(json.out)).toEqual(envelope.data);
    expect(callingTaskSchema.safeParse(JSON.parse(json.out)).success).toBe(true);
    const robots = JSON.parse((await cli(['robots', '--json'])).out);
    expect(robotListSchema.parse(robots).length).toBe(SEED.robotIds.length);
  });

  it('task detail shows the call records an operator scans', async () => {
    const tty = await cli(['task', 'detail', SEED.debtTaskId], { tty: true });
    for (const header of ['CALLEE', 'START', 'STATUS', 'INTENTION', 'RING', 'HANGUP', 'TALK ROUNDS'])
      expect(tty.out).toContain(header);
    const task = callingTaskSchema.parse(JSON.parse((await cli(['task', 'detail', SEED.debtTaskId, '--json'])).out));
    const piped = await cli(['task', 'detail', SEED.debtTaskId]);
    const callRows = piped.out.split('\n\n')[1]!.trim().split('\n');
    expect(callRows.length).toBe(task.detail.length);
    expect(callRows[0]!.split('\t')[0]).toBe(task.detail[0]!.CalleeNumber);
  });

  it('workflow list --all walks every page using count', async () => {
    const all = JSON.parse((await cli(['workflow', 'list', '--all', '--size', '5', '--json'])).out);
    expect(all.count).toBe(SEED.workflowCount);
    expect(all.lists.length).toBe(SEED.workflowCount);
    expect(new Set(all.lists.map((w: { workflow_id: string }) => w.workflow_id)).size).toBe(SEED.workflowCount);
    const listRequests = sandbox.requests.filter((r) => r.path.startsWith('/service/cloud/workflow/instancelist'));
    expect(listRequests.slice(-7).map((r) => new URL(r.path, sandbox.url).searchParams.get('page'))).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
    ]);
  });

  it('workflow task-detail lists the question-answer records', async () => {
    const piped = await cli(['workflow', 'task-detail', SEED.workflowTaskId]);
    const data = JSON.parse((await cli(['workflow', 'task-detail', SEED.workflowTaskId, '--json'])).out);
    const answers = data.details.flatMap((d: { question_answer?: unknown[] }) => d.question_answer ?? []);
    expect(answers.length).toBeGreaterThan(0);
    const sections = piped.out.split('\n\n');
    expect(sections[2]!.trim().split('\n').length).toBe(answers.length);
  });
});

describe('exit codes', () => {
  it('no token: 4', async () => {
    const res = await cli(['robots'], { env: { CALLCTL_TOKEN: '' } });
    expect(res.code).toBe(4);
    expect(res.err).toMatch(/not logged in/);
  });

  it('rejected credentials: 4', async () => {
    const res = await cli(['auth', 'login', '--app-key', sandbox.appKey, '--app-secret-stdin'], {
      stdin: 'wrong-secret-value',
    });
    expect(res.code).toBe(4);
    // The service's own text (the envelope's status) with its code and the endpoint.
    expect(res.err).toMatch(
      /^error: POST \/service\/cloud\/auth: (HTTP \d+, )?code (401|403): \S.*: the service rejected the APPKey \(from --app-key\) and APPSecret \(from --app-secret-stdin\): check them/,
    );
    expect(res.err).not.toContain('wrong-secret-value');
  });

  it('rejected token without credentials: 4', async () => {
    sandbox.expireTokens();
    const res = await cli(['robots']);
    expect(res.code).toBe(4);
    expect(res.err).toMatch(
      /^error: GET \/service\/cloud\/robot: (HTTP \d+, )?code (401|403)(: \S.*)?: the token in CALLCTL_TOKEN was rejected: set CALLCTL_TOKEN to a current token/,
    );
  });

  it('expired token with credentials at hand: re-authenticates once and succeeds', async () => {
    sandbox.expireTokens();
    const before = sandbox.requests.length;
    const res = await cli(['robots', '--json'], {
      env: { CALLCTL_APP_KEY: sandbox.appKey, CALLCTL_APP_SECRET: sandbox.appSecret },
    });
    expect(res.code).toBe(0);
    // The sandbox refuses the token as the spec reports outcomes: HTTP 200, envelope code 401.
    const paths = sandbox.requests.slice(before).map((r) => `${r.status}/${r.code} ${r.path}`);
    expect(paths).toEqual([
      '200/401 /service/cloud/robot',
      '200/200 /service/cloud/auth',
      '200/200 /service/cloud/robot',
    ]);
  });

  it('a cron job with only app key and secret gets a token in memory and writes no config', async () => {
    const dir = tempConfigDir();
    const res = await cli(['robots'], {
      env: {
        CALLCTL_TOKEN: '',
        CALLCTL_CONFIG_DIR: dir,
        CALLCTL_APP_KEY: sandbox.appKey,
        CALLCTL_APP_SECRET: sandbox.appSecret,
      },
    });
    expect(res.code).toBe(0);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('unknown TaskID: 1 with the service message', async () => {
    const res = await cli(['task', 'detail', 'T-NOPE']);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/task not found: T-NOPE/);
    expect(res.err.trim().split('\n')).toHaveLength(1);
  });

  it('HTTP 200 carrying an error code: 1, and --json adds an error object', async () => {
    const res = await cli(['plan', 'status', 'NO-SUCH-PLAN', '--json']);
    expect(res.code).toBe(1);
    expect(res.out).toBe('');
    const [line, json] = res.err.trim().split('\n');
    expect(line).toMatch(
      /^error: GET \/service\/cloud\/planstatus: code \d+: .*plan not found: NO-SUCH-PLAN\)?; the service refused: running again will not help until that is fixed$/,
    );
    expect(JSON.parse(json!).error).toMatchObject({
      kind: 'service',
      exitCode: 1,
      endpoint: 'GET /service/cloud/planstatus',
    });
  });

  it('service not running: 5 after retries', async () => {
    const res = await cli(['robots'], { env: { CALLCTL_BASE_URL: 'http://127.0.0.1:1' } });
    expect(res.code).toBe(5);
    expect(res.err).toMatch(/connection refused.*after 4 attempts/);
    expect(res.io.slept).toHaveLength(3);
  });

  it('a read that meets 500s then succeeds: 0, with the retries counted', async () => {
    sandbox.setFaults({ fail500: 2, path: '/service/cloud/robot' });
    const before = sandbox.requests.length;
    const res = await cli(['robots', '--verbose']);
    expect(res.code).toBe(0);
    const statuses = sandbox.requests.slice(before).map((r) => r.status);
    expect(statuses).toEqual([500, 500, 200]);
    expect(res.err).toMatch(/retry 1 of 3/);
    expect(res.err).toMatch(/retry 2 of 3/);
    expect(res.err).not.toMatch(/retry 3 of 3/);
  });

  it('429 with Retry-After: waits at least that long', async () => {
    sandbox.setFaults({ fail429: 1, retryAfter: 1, path: '/service/cloud/robot' });
    const started = Date.now();
    const res = await cli(['robots'], { realSleep: true });
    expect(res.code).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(res.io.slept).toEqual([1000]);
  });

  it('timeout: 5', async () => {
    sandbox.setFaults({ delayMs: 1500, path: '/service/cloud/robot' });
    const res = await cli(['robots', '--timeout', '0.2']);
    expect(res.code).toBe(5);
    expect(res.err).toMatch(/timed out after 0.2 s/);
  });

  it('unknown flag or bad date: 2', async () => {
    expect((await cli(['robots', '--colour'])).code).toBe(2);
    const bad = await cli(['workflow', 'list', '--from', '2026-11-01 10:00']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/expected a time such as .*, a date .*, or a duration ago/);
  });
});

describe('secrets, colour, prompts', () => {
  it('the token and the secret never appear in stdout, stderr or --verbose output', async () => {
    const secretEnv = { CALLCTL_APP_KEY: sandbox.appKey, CALLCTL_APP_SECRET: sandbox.appSecret };
    const outputs: string[] = [];
    sandbox.expireTokens();
    for (const argv of [
      ['robots', '-v'],
      ['task', 'detail', 'T-NOPE', '-v', '--json'],
      ['auth', 'status', '-v'],
      ['config', 'list', '-v'],
    ]) {
      const res = await cli(argv, { env: secretEnv });
      outputs.push(res.out, res.err);
    }
    const login = await cli(['auth', 'login', '-v', '--app-key', sandbox.appKey, '--app-secret-stdin'], {
      stdin: sandbox.appSecret,
      env: { CALLCTL_TOKEN: '' },
    });
    expect(login.code).toBe(0);
    outputs.push(login.out, login.err);
    const stored = JSON.parse((await import('node:fs')).readFileSync(`${env.CALLCTL_CONFIG_DIR}/config.json`, 'utf8'))
      .profiles.default.token as string;
    const all = outputs.join('\n');
    expect(all).toContain('Token ***');
    for (const secret of [token, sandbox.appSecret, stored]) expect(all).not.toContain(secret);
  });

  it('colour only on a TTY, and NO_COLOR, CLICOLOR=0, TERM=dumb and --no-color turn it off', async () => {
    expect((await cli(['robots'], { tty: true })).out).toMatch(ANSI);
    expect((await cli(['robots'])).out).not.toMatch(ANSI);
    for (const extra of [{ NO_COLOR: '1' }, { CLICOLOR: '0' }, { TERM: 'dumb' }]) {
      const res = await cli(['robots'], { tty: true, env: extra });
      expect(res.out).not.toMatch(ANSI);
      expect(res.out).toMatch(/┌/); // still a table
    }
    expect((await cli(['robots', '--no-color'], { tty: true })).out).not.toMatch(ANSI);
    expect((await cli(['robots'], { env: { FORCE_COLOR: '1' }, tty: true })).out).toMatch(ANSI);
  });

  it('prompts only on a TTY; without one a missing value names the flag and exits 2', async () => {
    const noTty = await cli(['auth', 'login'], { env: { CALLCTL_TOKEN: '', CALLCTL_APP_KEY: '' } });
    expect(noTty.code).toBe(2);
    expect(noTty.err).toMatch(/--app-key/);
    const noSecret = await cli(['auth', 'login', '--app-key', sandbox.appKey]);
    expect(noSecret.code).toBe(2);
    expect(noSecret.err).toMatch(/--app-secret-stdin/);

    const tty = await cli(['auth'], {
      tty: true,
      env: { CALLCTL_APP_KEY: '' },
      answers: [sandbox.appKey, sandbox.appSecret],
    });
    expect(tty.code).toBe(0);
    expect(tty.io.asked).toEqual(['APPKey', 'APPSecret']);
    expect((await cli(['auth', 'status'], { env: { CALLCTL_TOKEN: '' } })).code).toBe(0);
    expect((await cli(['robots'], { env: { CALLCTL_TOKEN: '' } })).code).toBe(0);
    expect((await cli(['auth', 'logout'])).code).toBe(0);
    expect((await cli(['auth', 'status'], { env: { CALLCTL_TOKEN: '' } })).code).toBe(4);
  });

  it('auth login says which credentials it used: the environment (no prompt), stdin, the prompt', async () => {
    const fromEnv = await cli(['auth', 'login'], {
      tty: true,
      env: { CALLCTL_TOKEN: '', CALLCTL_APP_KEY: sandbox.appKey, CALLCTL_APP_SECRET: sandbox.appSecret, NO_COLOR: '1' },
    });
    expect(fromEnv.code, fromEnv.err).toBe(0);
    expect(fromEnv.io.asked).toEqual([]);
    expect(fromEnv.err).toMatch(
      /^✓ logged in to \S+ \(profile default\) with the APPKey from CALLCTL_APP_KEY and the APPSecret from CALLCTL_APP_SECRET; token stored\n$/,
    );
    const fromStdin = await cli(['auth', 'login', '--app-key', sandbox.appKey, '--app-secret-stdin'], {
      stdin: sandbox.appSecret,
      env: { CALLCTL_TOKEN: '' },
    });
    expect(fromStdin.err).toMatch(
      /with the APPKey from --app-key and the APPSecret from --app-secret-stdin; token stored/,
    );
    // The APPKey is in the profile now (the logins above stored it): only the secret is asked.
    const prompted = await cli(['auth'], {
      tty: true,
      env: { CALLCTL_TOKEN: '', CALLCTL_APP_KEY: '' },
      answers: [sandbox.appSecret],
    });
    expect(prompted.io.asked).toEqual(['APPSecret']);
    expect(prompted.err).toMatch(
      /with the APPKey from profile default's app-key and the APPSecret from the prompt; token stored/,
    );
  });

  it("the README's login to a real service, typed after the tour's login, asks for the APPKey and the APPSecret", async () => {
    // The tour logs in to the default profile from the sandbox's export line (its APPKey is stored).
    const tour = await cli(['auth', 'login'], {
      env: { CALLCTL_TOKEN: '', CALLCTL_APP_KEY: sandbox.appKey, CALLCTL_APP_SECRET: sandbox.appSecret },
    });
    expect(tour.code, tour.err).toBe(0);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    const typed =
      /`callctl ([^`]*auth login --base-url) https:\/\/\.\.\.` asks for the APPKey and, masked, the APPSecret/.exec(
        readme,
      );
    expect(typed, 'the README says how to log in to a real service').not.toBeNull();
    // A new terminal: none of the export line's variables.
    const real = await cli([...typed![1]!.split(' '), sandbox.url], {
      tty: true,
      env: { CALLCTL_TOKEN: '', CALLCTL_APP_KEY: '', CALLCTL_BASE_URL: '' },
      answers: ['another-app-key', 'another-secret'],
    });
    // It asked for both (the sandbox refuses the made-up pair: exit 4), as the README says, where
    // the default profile would take the sandbox's APPKey it stored and ask only for the secret.
    expect(real.io.asked).toEqual(['APPKey', 'APPSecret']);
    expect(real.code).toBe(4);
  });

  it('a declined prompt exits 130', async () => {
    const err = Object.assign(new Error('User force closed the prompt'), { name: 'ExitPromptError' });
    const res = await cli(['auth', 'login'], { tty: true, env: { CALLCTL_TOKEN: '' }, answers: [err] });
    expect(res.code).toBe(130);
  });
});
