import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { ensureBuilt, serveHooksChild, type ChildHooks } from './child.js';
import { taskSign } from '../../src/signing/sign.js';
import { post, tempDir, until } from './helpers.js';
import { runUi } from './ui-helpers.js';

const KEY = 'config-key';
const task = (id: string) => JSON.stringify({ TaskID: id, TaskName: 'pw', Sign: taskSign(id, KEY) });

const file = (name: string, text: string) => {
  const path = join(tempDir(), name);
  writeFileSync(path, text);
  return path;
};
const serve = (argv: string[], env: Record<string, string> = {}) =>
  runCli(['serve-hooks', ...argv], { env: { CALLCTL_CONFIG_DIR: tempConfigDir(), ...env } });

let running: ChildHooks | undefined;
beforeAll(ensureBuilt);
afterEach(() => {
  running?.child.kill('SIGKILL');
  running = undefined;
});

describe('serve-hooks --config FILE', () => {
  it('takes the settings of a TOML or JSON file, flags winning, and prints what is in effect', async () => {
    const keys = file('keys.txt', 'k-one\n');
    const toml = file(
      'serve.toml',
      `port = 9191\nmax-connections = 100\nkey-file = "${keys}"\nfsync = true\nlog = "e.ndjson"\non-bad-sign = "ack"\npath = "/hooks/s3cret"\n`,
    );
    const r = await serve(['--config', toml, '--port', '9292', '--print-config']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('port = 9292\n'); // the flag wins
    expect(r.out).toContain('max-connections = 100\n');
    expect(r.out).toContain('on-bad-sign = "ack"\n');
    expect(r.out).toContain('fsync = true\n');
    expect(r.out).toContain('max-body-kib = 1024\n'); // defaults shown too
    expect(r.out).toContain('path = "***"\n');
    expect(r.out).not.toContain('s3cret');
    const json = file('serve.json', JSON.stringify({ 'max-age': 5, strict: true, 'keep-alive-timeout': 2.5 }));
    const j = await serve(['--config', json, '--print-config']);
    expect(j.code).toBe(0);
    expect(j.out).toMatch(/max-age = 5\n[\s\S]*keep-alive-timeout = 2.5\n[\s\S]*strict = true\n/);
  });

  it.each([
    [
      'a value out of its flag range',
      '{"max-connections": 0}',
      /max-connections: expected a whole number from 1 to 1000000, got "0"/,
    ],
    ['a choice not offered', 'on-bad-sign = "maybe"', /on-bad-sign: Allowed choices are reject, ack/],
    ['a key that is no flag', '{"max-conections": 5}', /max-conections: not a serve-hooks setting/],
    ['a KEY in the file', '{"key": "k-one"}', /key: no secrets in the file: give key-file/],
    ['a store URL with its password', 'store = "postgres://u:pw-1234@db/x"', /store: the URL holds a password/],
    ['a switch given a text', '{"fsync": "yes"}', /fsync: give true or false/],
    ['neither JSON nor TOML', 'port = [', /neither JSON nor TOML/],
  ])('refuses %s (exit 2, one line naming the key)', async (_what, text, message) => {
    const r = await serve(['--config', file(text.startsWith('{') ? 's.json' : 's.toml', text), '--skip-verify']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).not.toContain('pw-1234');
  });

  it("a forward target's password, from a flag or the file, is hidden in every output: only the password", async () => {
    const PASSWORD = 'pw-Fwd-91x';
    const heard: Array<string | undefined> = [];
    const app = createServer((req, res) => {
      heard.push(req.headers.authorization);
      req.resume().on('end', () => res.end('{}'));
    });
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    try {
      const origin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
      const to = `http://hooks-user:${PASSWORD}@${origin.slice(7)}/hooks`;
      const shownTo = `forward-to = "http://hooks-user:***@${origin.slice(7)}/hooks"\n`;
      const flag = await serve(['--forward-to', to, '--skip-verify', '--print-config']);
      expect(flag.code).toBe(0);
      expect(flag.out).toContain(shownTo);
      const settings = file('serve.toml', `forward-to = "${to}"\n`);
      const printed = await serve(['--config', settings, '--skip-verify', '--print-config']);
      expect(printed.out).toContain(shownTo);
      expect(flag.out + flag.err + printed.out + printed.err).not.toContain(PASSWORD);

      // A run: the target gets the password (Basic), and no line on stderr (-v included) shows it.
      const log = join(tempDir(), 'events.ndjson');
      const run = await runUi([
        'serve-hooks',
        '-v',
        '--config',
        settings,
        '--key',
        KEY,
        '--log',
        log,
        '--ui',
        '--ui-port',
        '0',
        '--port',
        '0',
      ]);
      try {
        expect((await post(run.hooks!, task('T-PW'))).status).toBe(200);
        await until(() => heard.length === 1);
        expect(heard[0]).toBe(`Basic ${Buffer.from(`hooks-user:${PASSWORD}`).toString('base64')}`);
        const detail = JSON.parse((await post(`${run.ui}api/events/1`, '', {}, 'GET')).body) as { curl: string };
        expect(detail.curl).toContain(`'http://hooks-user:***@${origin.slice(7)}/hooks'`);
        await until(() => run.err().includes('forward #1: 200'));
        expect(run.err()).toContain(`forwarding to ${origin}`);
        expect(run.err()).toContain(`> POST http://hooks-user:***@${origin.slice(7)}/hooks`);
        expect(run.err() + run.out() + JSON.stringify(detail)).not.toContain(PASSWORD);
      } finally {
        run.child.kill('SIGTERM');
      }
    } finally {
      app.close();
    }
  });

  it('a run takes the file: its body cap answers 413', async () => {
    const keys = file('keys.txt', 'k-one\n');
    running = await serveHooksChild(['--config', file('s.toml', `key-file = "${keys}"\nmax-body-kib = 1\n`)]);
    expect((await post(running.url, `{"pad":"${'x'.repeat(2000)}"}`)).status).toBe(413);
    expect((await post(running.url, '{"pad":"x"}')).status).toBe(200);
  });
});
