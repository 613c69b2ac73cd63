import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, beforeEach } from 'vitest';
import { type Sandbox } from '../../src/sandbox/server.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

const bin = fileURLToPath(new URL('../../bin/callctl.js', import.meta.url));
/** A folder that cannot be written even by root: sysfs (Linux). */
const READ_ONLY_DIR = '/sys/fs';
const TOKEN = 'tok-4d1e0c9b8a7f6e5d4c3b2a19';

let sandbox: Sandbox;
const fixture = useSandbox();
beforeEach(() => (sandbox = fixture.sandbox));

function oneLine(err: string): string {
  const lines = err.trim().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('local trouble is exit 6, one line, never a service error', () => {
  it('a config file that is a FIFO does not hang the command (a real process, 10 s limit)', () => {
    const dir = tempConfigDir();
    execFileSync('mkfifo', [join(dir, 'config.json')]);
    const r = spawnSync(process.execPath, [bin, 'config', 'list'], {
      env: { ...process.env, CALLCTL_CONFIG_DIR: dir },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(r.signal, 'the command hung on the FIFO').toBeNull();
    expect(r.status).toBe(6);
    expect(oneLine(r.stderr)).toMatch(/config file .*config\.json is not a regular file/);
  });

  it.each([
    ['cut short', `{"profiles":{"default":{"token":"${TOKEN}`],
    ['a bad character', `{"profiles":{"default":{"token":"${TOKEN}"}} x`],
    ['a stray comma', `{"profiles":{"default":{"token":"${TOKEN}",}}}`],
  ])(
    'a corrupt config file (%s) is exit 6 for reads and writes, naming the file and quoting no part of it',
    async (_what, text) => {
      const dir = tempConfigDir();
      writeFileSync(join(dir, 'config.json'), text);
      for (const argv of [
        ['robots'],
        ['config', 'list'],
        ['config', 'set', 'base-url', 'http://x'],
        ['auth', 'logout'],
        ['--json', 'config', 'get', 'base-url'],
      ]) {
        const r = await runCli(argv, { env: { CALLCTL_CONFIG_DIR: dir } });
        expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(6);
        expect(r.err).toContain(join(dir, 'config.json'));
        expect(r.err).toMatch(/not valid JSON/);
        for (let i = 0; i + 6 <= TOKEN.length; i++) expect(r.err).not.toContain(TOKEN.slice(i, i + 6));
      }
      // The corrupt file is reported, never overwritten by the write.
      expect(readFileSync(join(dir, 'config.json'), 'utf8')).toBe(text);
    },
  );

  it.each([
    ['an array', '[]', /not a JSON object/],
    ['profiles as a list', '{"profiles":["default"]}', /"profiles" is not an object/],
    ['a profile as text', `{"profiles":{"default":"${TOKEN}"}}`, /profile default is not an object/],
    ['a number value', '{"profiles":{"default":{"base-url":8}}}', /profile default: base-url is not text/],
  ])('a config file holding %s is not a callctl config (6)', async (_what, text, message) => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), text);
    const r = await runCli(['config', 'get', 'base-url'], { env: { CALLCTL_CONFIG_DIR: dir } });
    expect(r.code).toBe(6);
    expect(oneLine(r.err)).toMatch(message);
    expect(r.err).not.toContain(TOKEN);
  });

  it('a config file that cannot be read (a folder in its place) is 6', async () => {
    const dir = tempConfigDir();
    mkdirSync(join(dir, 'config.json'));
    const r = await runCli(['config', 'list'], { env: { CALLCTL_CONFIG_DIR: dir } });
    expect(r.code).toBe(6);
    expect(oneLine(r.err)).toMatch(/config\.json is not a regular file/);
  });

  it('a config folder that cannot be written or created is 6, with --json {"error":{"kind":"local"}}', async () => {
    const blocked = join(tempConfigDir(), 'a-file');
    writeFileSync(blocked, '');
    for (const dir of [READ_ONLY_DIR, join(READ_ONLY_DIR, 'callctl'), join(blocked, 'callctl')]) {
      const r = await runCli(['--json', 'config', 'set', 'base-url', 'http://x'], { env: { CALLCTL_CONFIG_DIR: dir } });
      expect(r.code, r.err).toBe(6);
      const [line, json] = r.err.trim().split('\n');
      expect(line).toMatch(/^error: cannot \w+/);
      expect(JSON.parse(json!).error).toMatchObject({ kind: 'local', exitCode: 6 });
    }
  });

  it('a journal folder that cannot be written is 6 and nothing is sent (push --csv, workflow update)', async () => {
    const dir = tempConfigDir();
    // State lives under $XDG_STATE_HOME/callctl: a file where the journal folders go.
    mkdirSync(join(dir, 'callctl'));
    writeFileSync(join(dir, 'callctl', 'journals'), '');
    writeFileSync(join(dir, 'callctl', 'uploads'), '');
    writeFileSync(join(dir, 'rows.csv'), 'caller_id\n+6281234567001\n');
    writeFileSync(join(dir, 'contacts.csv'), 'callee,platform\n+6281234567001,a\n');
    sandbox.requests.length = 0;
    const env = {
      CALLCTL_CONFIG_DIR: dir,
      XDG_STATE_HOME: dir,
      CALLCTL_BASE_URL: sandbox.url,
      CALLCTL_TOKEN: sandbox.issueToken(),
      CALLCTL_APP_KEY: sandbox.appKey,
      CALLCTL_FLEX_URL: sandbox.flexUrl,
      CALLCTL_PUSH_TOKEN: sandbox.pushToken,
    };
    const push = await runCli(['push', '--csv', join(dir, 'rows.csv'), '--yes'], { env });
    expect(push.code, push.err).toBe(6);
    expect(oneLine(push.err)).toMatch(
      /journals(: a file of that name is in the way|\/push-\w+\.jsonl: a part of the path is not a folder)/,
    );
    const upload = await runCli(
      ['workflow', 'update', '--workflow-id', 'wf-20001', '--csv', join(dir, 'contacts.csv'), '--yes'],
      { env },
    );
    expect(upload.code, upload.err).toBe(6);
    expect(upload.err).toMatch(/uploads: a file of that name is in the way/);
    expect(sandbox.requests.filter((q) => !q.path.startsWith('/service/cloud/auth'))).toHaveLength(0);
  });

  it('serve-hooks: a --log that cannot be opened is 6; an existing --log is made 0600', async () => {
    const dir = tempConfigDir();
    mkdirSync(join(dir, 'log-is-a-folder'));
    for (const log of [join(dir, 'log-is-a-folder'), join(READ_ONLY_DIR, 'events.ndjson')]) {
      const r = await runCli(['serve-hooks', '--port', '0', '--skip-verify', '--log', log, '--config-dir', dir]);
      expect(r.code, r.err).toBe(6);
      expect(oneLine(r.err)).toMatch(/--log: cannot open/);
    }
    const log = join(dir, 'events.ndjson');
    writeFileSync(log, '');
    chmodSync(log, 0o644);
    const { EventLog } = await import('../../src/store/files/event-log.js');
    const opened = EventLog.open(log);
    expect(statSync(log).mode & 0o777).toBe(0o600);
    await opened.close();
  });
});

describe('profile names', () => {
  it.each([['__proto__'], ['a b'], ['../prod'], ['-x'], ['x'.repeat(65)], ['prod/main']])(
    '%j is refused (2) from -p and CALLCTL_PROFILE, and nothing is written',
    async (name) => {
      const dir = tempConfigDir();
      const a = await runCli(['-p', name, 'config', 'set', 'base-url', 'http://x'], {
        env: { CALLCTL_CONFIG_DIR: dir },
      });
      expect(a.code).toBe(2);
      expect(oneLine(a.err)).toMatch(/is not a profile name \(a letter or digit/);
      const b = await runCli(['config', 'set', 'base-url', 'http://x'], {
        env: { CALLCTL_CONFIG_DIR: dir, CALLCTL_PROFILE: name },
      });
      expect(b.code).toBe(2);
      expect(b.err).toMatch(/CALLCTL_PROFILE/);
      // `config use` says it is no name at all, rather than suggesting to create it (a name
      // starting with - reads as an option there: exit 2 too).
      const c = await runCli(['config', 'use', name], { env: { CALLCTL_CONFIG_DIR: dir } });
      expect(c.code).toBe(2);
      if (!name.startsWith('-')) expect(oneLine(c.err)).toMatch(/config use: .* is not a profile name/);
      expect(c.err).not.toMatch(/create one/);
      expect(() => statSync(join(dir, 'config.json'))).toThrow();
    },
  );

  it('names that are properties of every object (constructor, toString) are plain profiles', async () => {
    const env = { CALLCTL_CONFIG_DIR: tempConfigDir() };
    expect((await runCli(['-p', 'constructor', 'config', 'get', 'base-url'], { env })).out).toBe('');
    expect((await runCli(['-p', 'constructor', 'config', 'set', 'base-url', 'http://c'], { env })).code).toBe(0);
    expect((await runCli(['-p', 'constructor', 'config', 'get', 'base-url'], { env })).out).toBe('http://c\n');
    expect((await runCli(['-p', 'toString', 'config', 'get', 'base-url'], { env })).out).toBe('');
  });
});
