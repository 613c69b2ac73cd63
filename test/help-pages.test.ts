import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandPaths, renderHelp } from '../src/help/pages.js';
import { helpPageKey, readHelpPage } from '../src/help/request.js';

const bin = fileURLToPath(new URL('../bin/callctl.js', import.meta.url));
const pagesFile = new URL('../dist/help.json', import.meta.url);
const built = JSON.parse(readFileSync(pagesFile, 'utf8')) as Record<string, string>;

const cli = (args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, CALLCTL_CONFIG_DIR: '/nonexistent-callctl' },
  });

const paths = (await commandPaths()).filter((p) => !p.includes('__complete'));

describe('help pages rendered by the build (dist/help.json)', () => {
  it('there is a page for every command of the tree', () => {
    expect(Object.keys(built).sort()).toEqual(paths.map((p) => p.join(' ')).sort());
  });

  it.each(paths.map((p) => [p.join(' ') || '(the program)', p]))(
    '`%s --help`: the page is what commander prints',
    async (_name, path) => {
      expect(built[path.join(' ')]).toBe(await renderHelp(path));
    },
  );

  it('the built CLI answers each form of a help request with its page', () => {
    for (const [args, key] of [
      [['--help'], ''],
      [['-h'], ''],
      [['help'], ''],
      [['help', 'workflow'], 'workflow'],
      [['workflow', 'update', '--help'], 'workflow update'],
      [['push', '-h'], 'push'],
    ] as const) {
      const res = cli([...args]);
      expect(res.status, args.join(' ')).toBe(0);
      expect(res.stdout, args.join(' ')).toBe(built[key]);
      expect(res.stderr).toBe('');
    }
    const bare = cli([]);
    expect(bare.status).toBe(2);
    expect(bare.stdout).toBe('');
    expect(bare.stderr).toBe(built['']);
  });

  it('anything else still goes to commander: an unknown name, help with other flags; help for two words is their page', () => {
    // commander answers --help before it looks at an unknown command: the program's help.
    const unknown = cli(['workflw', '--help']);
    expect(unknown.status).toBe(0);
    expect(unknown.stdout).toBe(built['']);
    const json = cli(['--json', 'robots', '--help']);
    expect(json.status).toBe(0);
    expect(json.stdout).toBe(built.robots);
    // `help a b` is the page of `a b` (commander's own help command would show `a`'s).
    const two = cli(['help', 'workflow', 'update']);
    expect(two.status).toBe(0);
    expect(two.stdout).toBe(built['workflow update']);
  });
});

describe('helpPageKey', () => {
  it.each([
    [['--help'], ''],
    [['-h'], ''],
    [['help'], ''],
    [['help', 'robots'], 'robots'],
    [['workflow', 'update', '--help'], 'workflow update'],
    [['workflow', 'update', '-h'], 'workflow update'],
    [['help', 'workflow', 'update'], 'workflow update'],
    [['--json', '--help'], undefined],
    [['robots', '--help', '--json'], undefined],
    [['robots'], undefined],
    [[], undefined],
  ])('%j -> %j', (argv, key) => {
    expect(helpPageKey(argv)).toBe(key);
  });

  it('a key that is not a page (an inherited property, a missing file) reads as no page', () => {
    expect(readHelpPage(pagesFile, 'constructor')).toBeUndefined();
    expect(readHelpPage(pagesFile, 'nope')).toBeUndefined();
    expect(readHelpPage(new URL('./missing.json', pagesFile), '')).toBeUndefined();
    expect(readHelpPage(pagesFile, 'robots')).toBe(built.robots);
  });
});
