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
