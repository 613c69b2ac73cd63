import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';
import { commandPaths, renderHelp } from '../src/help/pages.js';

describe('callctl help', () => {
  it('`help a b` shows the page of `a b`, the same as `a b --help`', async () => {
    const r = await runCli(['help', 'workflow', 'update']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: callctl workflow update \[options\]/);
    expect(r.out).toBe(await renderHelp(['workflow', 'update']));
  });

  it('an unknown command is exit 2 with one line naming it', async () => {
    const r = await runCli(['help', 'nope']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^error: unknown command 'nope'; commands: auth, config, robots/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    const near = await runCli(['help', 'workflow', 'updat']);
    expect(near.code).toBe(2);
    expect(near.err).toBe("error: unknown command 'workflow updat' (did you mean workflow update?)\n");
  });

  it('a mistyped command in any group, auth included (bare auth is auth login), is exit 2 naming the closest one', async () => {
    const paths = (await commandPaths()).filter((p) => !p.includes('__complete') && !p.includes('completion'));
    let tried = 0;
    for (const path of paths.filter((p) => p.length > 0)) {
      const name = path.at(-1)!;
      if (name.length < 4) continue;
      // Two different neighbouring letters swapped, after the first: `stauts` for `status`.
      const i = [...name].findIndex((c, k) => k > 0 && name[k + 1] !== undefined && name[k + 1] !== c);
      const typo = `${name.slice(0, i)}${name[i + 1]}${name[i]}${name.slice(i + 2)}`;
      const r = await runCli([...path.slice(0, -1), typo]);
      expect(r.code, `${path.join(' ')} as ${typo}: ${r.err}`).toBe(2);
      expect(r.err, path.join(' ')).toMatch(
        new RegExp(`^error: unknown command '${typo}' \\(did you mean (one of )?[^)]*\\b${name}\\b`),
      );
      expect(r.err.trim().split('\n')).toHaveLength(1);
      tried++;
    }
    expect(tried).toBeGreaterThan(30);
    const auth = await runCli(['auth', 'stauts']);
    expect(auth.err).toBe("error: unknown command 'stauts' (did you mean status?)\n");
    // Bare auth, and auth with login's own flags, still log in (here: no terminal to prompt on).
    expect((await runCli(['auth', '--app-key', 'k', '--no-input'])).err).not.toMatch(/unknown command/);
    expect((await runCli(['help', 'auth', 'stauts'])).err).toBe(
      "error: unknown command 'auth stauts' (did you mean auth status?)\n",
    );
  });

  it("a group's page (and the program's) lists its commands first, then its own and the global options", async () => {
    const paths = (await commandPaths()).filter((p) => !p.includes('__complete'));
    const groups = paths.filter((p) => paths.some((q) => q.length === p.length + 1 && p.every((w, i) => q[i] === w)));
    expect(groups.length).toBeGreaterThan(6);
    for (const path of groups) {
      const page = (await renderHelp(path))!;
      const commands = page.indexOf('\nCommands:\n');
      expect(commands, path.join(' ')).toBeGreaterThan(0);
      expect(commands, path.join(' ')).toBeLessThan(page.indexOf('\nOptions:\n'));
      expect(page).not.toMatch(/\n\n\n/);
    }
  });

  it("every subcommand's page lists the global flags", async () => {
    const paths = (await commandPaths()).filter((p) => p.length > 0 && !p.includes('__complete'));
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      const page = (await renderHelp(path))!;
      const global = page.split('Global Options:')[1] ?? '';
      for (const flag of ['--json', '-p, --profile <name>', '--timeout <seconds>'])
        expect(global, `${path.join(' ')}: ${flag}`).toContain(flag);
    }
  });
});
