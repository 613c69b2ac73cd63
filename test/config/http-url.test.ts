import { describe, expect, it } from 'vitest';
import { httpUrl } from '../../src/config/http-url.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';

describe('httpUrl, the one check of an address callctl sends to', () => {
  it.each(['http://127.0.0.1:8080', 'https://service.example/base', 'https://u:p@h.example/x?y=1'])(
    'accepts %s',
    (url) => {
      expect(httpUrl(url, '--x')).toBe(url);
    },
  );

  it.each(['ftp://h', 'service.example', 'http://', 'https:///path', 'http://h x', 'mailto:a@b', 'file:///etc/passwd'])(
    'refuses %s, naming where it came from',
    (url) => {
      expect(() => httpUrl(url, '--x')).toThrow(/^--x: expected an http:\/\/ or https:\/\/ URL/);
    },
  );

  it('is missing when empty', () => {
    expect(() => httpUrl('', 'base URL')).toThrow('missing base URL: an http:// or https:// URL');
    expect(() => httpUrl(undefined, '--url')).toThrow('missing --url: an http:// or https:// URL');
  });

  it('every command that takes an address refuses a bad one with exit 2 and the same line', async () => {
    const env = { CALLCTL_CONFIG_DIR: tempConfigDir(), CALLCTL_TOKEN: 't' };
    const cases: Array<[string[], string]> = [
      [['--base-url', 'ftp://h', 'robots'], 'base URL'],
      [['auth', 'login', '--base-url', 'ftp://h', '--app-key', 'k', '--app-secret-stdin'], 'base URL'],
      [['config', 'set', 'flex-url', 'flex.example'], 'flex-url'],
      [['push', '--caller-id', '+6281200000001', '--flex-url', 'h:1', '--yes'], 'flex-url'],
      [['hooks', 'replay', '--log', '/dev/null', '--to', 'ftp://h'], '--to'],
    ];
    for (const [argv, what] of cases) {
      const r = await runCli(argv, { env, stdin: 'secret' });
      expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(2);
      expect(r.err).toContain(`${what}: expected an http:// or https:// URL`);
    }
  });
});
