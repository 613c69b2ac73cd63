import type { CommandUnknownOpts as Command } from '../src/commands/commander.js';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/program.js';
import { testIO } from './helpers/io.js';
import { runCli } from './helpers/cli.js';

/** Every command that runs something (not the nouns that only group them). */
async function leaves(): Promise<string[][]> {
  const io = testIO();
  const program = await buildProgram(io, { exitCode: 0 });
  const out: string[][] = [];
  const walk = (c: Command, path: string[]) => {
    const subs = c.commands.filter((s) => !(s as unknown as { _hidden?: boolean })._hidden);
    if (subs.length === 0 && path.length) out.push(path);
    for (const s of subs) walk(s, [...path, s.name()]);
  };
  walk(program, []);
  return out;
}

const commands = await leaves();

describe('help', () => {
  it('covers every command of design.md', () => {
    const names = commands.map((c) => c.join(' '));
    for (const name of [
      'auth login',
      'auth status',
      'auth logout',
      'auth token',
      'robots',
      'task detail',
      'plan status',
      'plan detail',
      'workflow list',
      'workflow update',
      'workflow verify-push',
      'workflow task-detail',
      'push',
      'template send',
      'serve-hooks',
      'hooks trigger',
      'hooks replay',
      'sandbox',
      'config get',
      'config set',
      'config list',
      'completion',
    ]) {
      expect(names).toContain(name);
    }
  });

  it.each(commands.map((c) => [c.join(' '), c]))(
    '`%s --help`: purpose, flags, examples, JSON shape',
    async (_name, path) => {
      const res = await runCli([...path, '--help']);
      expect(res.code).toBe(0);
      const [usage, , purpose] = res.out.split('\n');
      expect(usage).toMatch(/^Usage: callctl /);
      expect(purpose!.length).toBeGreaterThan(10);
      expect(res.out).toMatch(/\nExamples:\n( {2}\S.*\n)( {2}.*\n)+/);
      expect(res.out).toMatch(/JSON|--json|Output:/);
      // The README is the first hour; what a page points a reader to is a page of the manual.
      expect(res.out).not.toMatch(/README, "/);
    },
  );

  it('root --help lists the exit codes as the README and docs/output.md tables do (exit 2 for an upload already running, 4 for a token of another base URL)', async () => {
    const res = await runCli(['--help']);
    const { readFileSync } = await import('node:fs');
    // The README's short table and the manual's full one (docs/output.md) list the same codes.
    let codes: string[] = [];
    for (const page of ['../README.md', '../docs/output.md']) {
      const text = readFileSync(new URL(page, import.meta.url), 'utf8');
      codes = [...text.matchAll(/^\| (\d+) \| /gm)].map((m) => m[1]!);
      expect(codes, page).toEqual(['0', '1', '2', '3', '4', '5', '6', '130']);
    }
    const section = res.out.slice(res.out.indexOf('Exit codes')).replace(/\n {5}/g, ' ');
    for (const code of codes) expect(section).toMatch(new RegExp(`\\n {2}${code} {1,2}\\S`));
    expect(section).toMatch(/\n {2}2 .*already running/);
    expect(section).toMatch(/\n {2}4 .*another base URL/);
  });

  it("a group's summary covers what it holds: hooks reads recorded events as well as sending samples", async () => {
    const res = await runCli(['hooks', '--help']);
    const summary = res.out.split('\n\n')[1]!.replace(/\s+/g, ' ');
    for (const verb of ['trigger', 'events', 'show', 'ui', 'replay']) expect(summary).toContain(verb);
    const root = (await runCli(['--help'])).out.replace(/\n {20,}/g, ' ');
    expect(root).toMatch(/\n {2}hooks +recorded notifications/);
  });

  it('`callctl help <command>` works and a mistyped command suggests the closest one', async () => {
    const help = await runCli(['help', 'workflow']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/Usage: callctl workflow/);
    const typo = await runCli(['workflw', 'list']);
    expect(typo.code).toBe(2);
    expect(typo.err).toBe("error: unknown command 'workflw' (did you mean workflow?)\n");
  });
});
