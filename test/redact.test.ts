import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from './helpers/cli.js';
import { ensureBuilt, exited, serveHooksChild } from './hooks/child.js';

/*
 * A service that echoes every secret back: each answer carries the request as it came (path,
 * headers, body) and every secret the test knows, in its error text and in its body. The secrets
 * hold `"` and `\`, so that their JSON-escaped forms differ from the raw ones. Then every text
 * callctl wrote (stdout, stderr, --json errors, --verbose, results, rejects, journals, the event
 * log) is searched for every secret in each form.
 */
const SECRETS = {
  token: 'tok"en\\Echo-7f3a91',
  // `/`, `+` and non-ASCII too: a service writing JSON as PHP does spells them `\/` and `\u00e9`.
  appSecret: 'app"Sec\\ret/é+91c2d4',
  pushToken: 'ptk"push\\tok-55e0b1',
  signKey: 'sgk"Key\\-3c1d8e7',
  signSecret: 'sgs"Secret\\-8e2b40',
  hookKey: 'hk"Key\\-77aa0c9',
  chatbotSecret: 'cb"Secret\\-19ff3e',
  // A path segment: a backslash would turn into a slash in a URL.
  hookPath: '/hooks/pthSecret-0b9e77',
  urlPassword: 'pw"Url\\-4242ab',
};
const ALL = Object.values(SECRETS);

/** A secret as PHP's json_encode writes it (`/` as `\/`, non-ASCII as `\uXXXX`), and HTML-escaped. */
const php = (s: string) =>
  JSON.stringify(s)
    .slice(1, -1)
    .replace(/\//g, '\\/')
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const html = (s: string) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/é/g, '&eacute;');

/** Every form a secret can take in what callctl writes. */
function forms(secret: string): string[] {
  const json1 = JSON.stringify(secret).slice(1, -1);
  const json2 = JSON.stringify(json1).slice(1, -1);
  return [
    ...new Set([
      secret,
      json1,
      json2,
      secret.replaceAll('"', '""'),
      encodeURIComponent(secret),
      encodeURI(secret),
      php(secret),
      html(secret),
    ]),
  ];
}

/** The secrets a CLI command knows of (from its environment); serve-hooks also knows its --path. */
const CLI_SECRETS = ALL.filter((s) => s !== SECRETS.hookPath && s !== SECRETS.urlPassword);

function expectClean(where: string, text: string, secrets = CLI_SECRETS): void {
  for (const secret of secrets)
    for (const form of forms(secret))
      expect(text.includes(form), `${where} holds ${JSON.stringify(form)}:\n${text.slice(0, 3000)}`).toBe(false);
}

/** Every file under a folder, with its text. */
function filesUnder(dir: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push([path, readFileSync(path, 'utf8')]);
  }
  return out;
}

let echo: Server;
let echoUrl: string;
let dir: string;

beforeAll(async () => {
  ensureBuilt();
  echo = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      // Also in the spellings of services that escape as PHP does, or HTML-escape their text.
      const said = `you sent ${req.method} ${decodeURIComponent(req.url ?? '')} ${JSON.stringify(req.headers)} ${body}; and we know ${ALL.join(' ')} ${ALL.map(php).join(' ')} ${ALL.map(html).join(' ')}`;
      // An envelope refusal (and a push/template answer) whose every text field echoes.
      const answer = {
        code: 400,
        status: said,
        message: said,
        show_err: true,
        data: { echo: said, secrets: ALL },
        body: said,
        trace_id: 'tr-echo',
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  dir = tempConfigDir();
  writeFileSync(join(dir, 'chatbot-secret.txt'), `${SECRETS.chatbotSecret}\n`);
  writeFileSync(join(dir, 'rows.csv'), 'caller_id,client_name\n+6281234567001,Budi\n+6281234567002,Sari\n');
  writeFileSync(
    join(dir, 'recipients.csv'),
    'user_id,channel,channel_id,date,name\nu-1,wa,ch-1,2026-12-01,Budi\nu-2,wa,ch-2,2026-12-01,Sari\n',
  );
  writeFileSync(join(dir, 'contacts.csv'), 'callee,platform\n+6281234567001,a\nnot-a-number,a\n+6281234567003,a\n');
});
afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

describe('one redaction: a service that echoes every secret never gets one printed or written', () => {
  const env = () => ({
    CALLCTL_CONFIG_DIR: dir,
    XDG_STATE_HOME: dir,
    CALLCTL_BASE_URL: echoUrl,
    CALLCTL_TOKEN: SECRETS.token,
    CALLCTL_APP_KEY: 'app-echo',
    // Each run knows every secret itself, as a cron job's environment gives them (no run may rely
    // on what an earlier run in this process learnt: test/helpers/secrets-per-test.ts).
    CALLCTL_APP_SECRET: SECRETS.appSecret,
    CALLCTL_FLEX_URL: `${echoUrl}/flex`,
    CALLCTL_PUSH_TOKEN: SECRETS.pushToken,
    CALLCTL_SIGN_KEY: SECRETS.signKey,
    CALLCTL_SIGN_SECRET: SECRETS.signSecret,
    CALLCTL_HOOK_KEYS: SECRETS.hookKey,
    CALLCTL_CHATBOT_SECRET: SECRETS.chatbotSecret,
  });

  it.each([
    ['auth login', ['auth', 'login', '--app-key', 'k-echo', '--app-secret-stdin'], SECRETS.appSecret],
    ['robots', ['robots'], undefined],
    ['api --raw', ['api', 'GET', '/service/cloud/robot', '--raw'], undefined],
    ['task detail', ['task', 'detail', 'T-1'], undefined],
    ['push', ['push', '--caller-id', '+6281234567001', '--yes'], undefined],
    ['push --csv', ['push', '--csv', '@rows.csv', '--yes', '--results', '@push.results.csv'], undefined],
    [
      'template send',
      [
        'template',
        'send',
        '--template-id',
        '7',
        '--user-id',
        'u-1',
        '--channel',
        'wa',
        '--channel-id',
        'ch-1',
        '--var',
        'date=2026-12-01',
        '--var',
        'name=Budi',
        '--reply-url',
        'http://reply.example/r',
        '--yes',
      ],
      undefined,
    ],
    [
      'template send --csv',
      [
        'template',
        'send',
        '--template-id',
        '7',
        '--csv',
        '@recipients.csv',
        '--reply-url',
        'http://reply.example/r',
        '--yes',
        '--results',
        '@template.results.csv',
      ],
      undefined,
    ],
    [
      'workflow update',
      [
        'workflow',
        'update',
        '--workflow-id',
        'wf-echo',
        '--csv',
        '@contacts.csv',
        '--max-invalid',
        '5',
        '--rejects',
        '@rejects.csv',
        '--yes',
      ],
      undefined,
    ],
  ])('%s: stdout, stderr, --json errors and --verbose', async (_name, argv, stdin) => {
    const args = argv.map((a) => (a.startsWith('@') ? join(dir, a.slice(1)) : a));
    for (const extra of [[], ['--json'], ['--verbose'], ['--json', '--verbose']]) {
      const r = await runCli([...extra, ...args], { env: env(), stdin });
      expect(r.code, `${args.join(' ')} ${extra.join(' ')}: ${r.err}`).not.toBe(0);
      // The echo did reach callctl: the service's text is shown (redacted).
      if (extra.length === 0) expect(r.err + r.out).toMatch(/you sent|\*\*\*/);
      expectClean(`stdout of ${argv[0]} ${extra.join(' ')}`, r.out);
      expectClean(`stderr of ${argv[0]} ${extra.join(' ')}`, r.err);
    }
  });

  it('--verbose shows no password of a URL (base URL with user:password)', async () => {
    const url = new URL(echoUrl);
    const withPassword = `http://ops:${encodeURIComponent(SECRETS.urlPassword)}@${url.host}`;
    for (const extra of [['--verbose'], ['--json', '--verbose']]) {
      const r = await runCli([...extra, 'robots', '--base-url', withPassword], { env: env() });
      expect(r.code).not.toBe(0);
      expectClean('robots --verbose with a password in the base URL', r.out + r.err, [
        ...CLI_SECRETS,
        SECRETS.urlPassword,
      ]);
    }
  });

  it('results, rejects and journal files hold no secret', () => {
    const files = filesUnder(dir).filter(([path]) => !/chatbot-secret\.txt$/.test(path));
    const names = files.map(([path]) => path.slice(dir.length + 1));
    // What must have been written: results of both sends, the rejects file and the journals.
    expect(names, names.join(', ')).toEqual(
      expect.arrayContaining(['push.results.csv', 'template.results.csv', 'rejects.csv']),
    );
    expect(
      names.some((n) => n.startsWith('callctl/journals')),
      names.join(', '),
    ).toBe(true);
    // (An upload refused at its first batch leaves no journal: uploads/ is checked when present.)
    for (const [path, text] of files) expectClean(path, text);
  });

  it('serve-hooks: forwarding to an app that echoes, the event log, stdout and stderr hold no secret', async () => {
    const log = join(dir, 'events.ndjson');
    const hooks = await serveHooksChild(
      [
        '--key',
        SECRETS.hookKey,
        '--chatbot-secret-file',
        join(dir, 'chatbot-secret.txt'),
        '--path',
        SECRETS.hookPath,
        '--log',
        log,
        '--forward-to',
        `${echoUrl}/app`,
        '--verbose',
      ],
      { env: { CALLCTL_CONFIG_DIR: tempConfigDir() } },
    );
    try {
      for (const type of ['task.end', 'chatbot.transfer']) {
        const r = await runCli(['hooks', 'trigger', type, '--url', `${hooks.url}${SECRETS.hookPath}`], { env: env() });
        expect(r.code, r.err).toBe(0);
        expectClean(`hooks trigger ${type}`, r.out + r.err);
      }
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the forwards and their answers
    } finally {
      hooks.child.kill('SIGTERM');
      await exited(hooks.child);
    }
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(2);
    // What serve-hooks knows: its KEY, the chatbot secret and its secret --path.
    const known = [SECRETS.hookKey, SECRETS.chatbotSecret, SECRETS.hookPath];
    expectClean('the event log', readFileSync(log, 'utf8'), known);
    expectClean('serve-hooks stdout', hooks.stdout(), known);
    expectClean('serve-hooks stderr', hooks.stderr(), known);
  });
});

describe('the redaction itself', () => {
  it('a store URL password (profile or environment) is redacted wherever it appears', async () => {
    const { addUrlSecrets, redact, redactValues } = await import('../src/redact.js');
    const password = 'st"ore\\Pw-61d0';
    const url = `postgres://events:${encodeURIComponent(password)}@db.example/hooks`;
    addUrlSecrets(url);
    for (const text of [
      `could not connect to ${url}`,
      `password ${password} refused`,
      JSON.stringify({ error: `auth failed: ${password}` }),
    ]) {
      for (const out of [redact(text), redactValues(text)])
        for (const form of forms(password)) expect(out).not.toContain(form);
    }
    expect(redact(`connect ${url}`)).toBe('connect postgres://events:***@db.example/hooks');
  });
});
