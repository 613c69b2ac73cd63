import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/program.js';
import { testIO } from '../src/io.js';
import type { Deps, RunState } from '../src/commands/action.js';

/** Parses argv with the real tree and records what the command's action receives. */
async function parse(argv: string[]) {
  const io = testIO();
  const state: RunState = { exitCode: 0 };
  let seen:
    { command: string; opts: Record<string, unknown>; args: unknown[]; globals: Record<string, unknown> } | undefined;
  const deps: Deps = {
    io,
    state,
    action:
      () =>
      async (...args: unknown[]) => {
        const cmd = args.at(-1) as Command;
        const names: string[] = [];
        for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
        seen = { command: names.join(' '), opts: cmd.opts(), args: args.slice(0, -2), globals: cmd.optsWithGlobals() };
      },
  };
  await buildProgram(io, state, deps).parseAsync(argv, { from: 'user' });
  return seen!;
}

const table: Array<[string[], string, Record<string, unknown>, unknown[]]> = [
  [['robots'], 'robots', {}, []],
  [['auth'], 'auth login', {}, []],
  [['auth', 'login', '--app-key', 'K', '--app-secret-stdin'], 'auth login', { appKey: 'K', appSecretStdin: true }, []],
  [['auth', 'status'], 'auth status', {}, []],
  [['task', 'detail', 'T-1'], 'task detail', {}, ['T-1']],
  [['plan', 'status', 'P'], 'plan status', {}, ['P']],
  [['plan', 'detail', 'P'], 'plan detail', {}, ['P']],
  [
    ['workflow', 'list', '--page', '2', '--size', '5', '--from', '2026-11-01T00:00:00Z', '--all'],
    'workflow list',
    { page: 2, size: 5, from: '2026-11-01T00:00:00Z', all: true },
    [],
  ],
  [
    ['workflow', 'verify-push', '--workflow-id', 'W', '--node-id', 'N', '--callee', '+6281200000001', '--case-id', 'C'],
    'workflow verify-push',
    { workflowId: 'W', nodeId: 'N', callee: '+6281200000001', caseId: 'C' },
    [],
  ],
  [['workflow', 'task-detail', 'WT-1'], 'workflow task-detail', {}, ['WT-1']],
  [['config', 'set', 'base-url', 'http://x'], 'config set', {}, ['base-url', 'http://x']],
  [['config', 'get', 'base-url', '--reveal'], 'config get', { reveal: true }, ['base-url']],
  [['config', 'list'], 'config list', {}, []],
];

describe('argv to options', () => {
  it.each(table)('%j', async (argv, command, opts, args) => {
    const seen = await parse(argv);
    expect(seen.command).toBe(command);
    expect(seen.opts).toMatchObject(opts);
    expect(seen.args).toEqual(args);
  });

  it('reads global options before and after the command', async () => {
    const seen = await parse([
      '-p',
      'prod',
      'robots',
      '--json',
      '--timeout',
      '5',
      '--no-color',
      '--base-url',
      'http://h',
      '--no-input',
      '-v',
    ]);
    expect(seen.globals).toMatchObject({
      profile: 'prod',
      json: true,
      timeout: 5,
      color: false,
      baseUrl: 'http://h',
      input: false,
      verbose: true,
    });
  });

  it.each([
    [['robots', '--bogus']],
    [['workflow', 'list', '--from', '2026-11-01']],
    [['workflow', 'list', '--page', '0']],
    [['robots', '--timeout', 'soon']],
    [['task', 'detail']],
    [['workflow', 'verify-push', '--workflow-id', 'W']],
  ])('rejects %j as a usage error', async (argv) => {
    await expect(parse(argv)).rejects.toMatchObject({ code: expect.stringMatching(/^commander\./) });
  });
});
