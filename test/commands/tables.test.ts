import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SEED, type Sandbox } from '../../src/sandbox/server.js';
import { displayWidth } from '../../src/output/table.js';
import { runCli, type RunOptions } from '../helpers/cli.js';
import { TmuxSession } from '../helpers/tmux.js';
import { itWith } from '../helpers/programs.js';
import { useSandbox } from '../helpers/sandbox.js';

let sandbox: Sandbox;
let env: Record<string, string>;
const sessions: TmuxSession[] = [];

const fixture = useSandbox();
// Hooks after a test run last-registered first: the sessions close before the sandbox does.
afterAll(() => {
  for (const s of sessions) s.close();
});
beforeEach(() => {
  sandbox = fixture.sandbox;
  env = { ...fixture.env, NO_COLOR: '1' };
});

const cli = (argv: string[], options: RunOptions = {}) => runCli(argv, { ...options, env: { ...env, ...options.env } });
const lines = (text: string) => text.split('\n').filter(Boolean);
const robots = () => sandbox.state.robots;

/** Every table command at 80 columns: what it must show whole. */
const tables: Array<{ argv: string[]; whole: () => string[] }> = [
  { argv: ['robots'], whole: () => robots().map((r) => r.RobotID) },
  { argv: ['workflow', 'list'], whole: () => [SEED.workflowId] },
  {
    argv: ['task', 'detail', SEED.debtTaskId],
    whole: () => sandbox.state.tasks.get(SEED.debtTaskId)!.task.detail.map((c) => c.CalleeNumber),
  },
  { argv: ['plan', 'detail', SEED.planName], whole: () => ['T-PLANA-R1', 'T-PLANA-R3'] },
  { argv: ['workflow', 'task-detail', SEED.workflowTaskId], whole: () => [SEED.verifyPush.callee] },
  { argv: ['config', 'list'], whole: () => ['base-url'] },
];

describe('tables fit the terminal', () => {
  it.each(tables)('$argv fits 80 columns, identifiers whole', async ({ argv, whole }) => {
    const r = await cli(argv, { tty: true, columns: 80 });
    expect(r.code, r.err).toBe(0);
    const table = lines(r.out).filter((l) => /^[┌│├└]/.test(l));
    expect(table.length).toBeGreaterThan(0);
    for (const line of table) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    for (const id of whole()) expect(r.out).toContain(id);
  });

  it('robots: the widest free text is shortened with an ellipsis, --wide shows every cell whole', async () => {
    const longest = robots()
      .map((r) => r.RobotDescription ?? '')
      .sort((a, b) => b.length - a.length)[0]!;
    const fit = await cli(['robots'], { tty: true, columns: 80 });
    expect(fit.out).toContain('…');
    expect(fit.out).not.toContain(longest);
    // METHOD and TONE are values, shortened only after the free text: whole here.
    for (const r of robots()) expect(fit.out).toContain(r.RobotMethod);

    const wide = await cli(['robots', '--wide'], { tty: true, columns: 80 });
    expect(wide.out).toContain(longest);
    expect(wide.out).not.toContain('…');
    expect(Math.max(...lines(wide.out).map(displayWidth))).toBeGreaterThan(80);
  });

  it('workflow list leaves out the columns it cannot fit and says which', async () => {
    const r = await cli(['workflow', 'list', '--size', '5'], { tty: true, columns: 80 });
    expect(r.out).toMatch(/│ ID +│ NAME/);
    expect(r.out).not.toContain('CREATED');
    expect(r.err).toMatch(/CREATED left out to fit 80 columns; --wide shows every column/);
    const wide = await cli(['workflow', 'list', '--size', '5', '--wide'], { tty: true, columns: 80 });
    expect(wide.out).toContain('CREATED');
    expect(wide.err).not.toMatch(/left out/);
  });

  it('piped output stays TSV, whole, with a header line only when asked', async () => {
    const longest = robots()
      .map((r) => r.RobotDescription ?? '')
      .sort((a, b) => b.length - a.length)[0]!;
    const piped = await cli(['robots']);
    expect(piped.out).toContain(longest);
    expect(piped.out).not.toContain('…');
    expect(lines(piped.out)).toHaveLength(robots().length);
    expect(lines(piped.out)[0]!.split('\t')).toHaveLength(6);

    const header = await cli(['robots', '--header']);
    expect(lines(header.out)[0]).toBe('ID\tNAME\tMETHOD\tVOICE\tTONE\tDESCRIPTION');
    expect(lines(header.out).slice(1)).toEqual(lines(piped.out));

    // Piped, nothing is left out however many columns: workflow list keeps all 8.
    const list = await cli(['workflow', 'list', '--size', '3']);
    for (const line of lines(list.out)) expect(line.split('\t')).toHaveLength(8);
  });
});

describe('--columns', () => {
  it('picks columns by header name, in its order, piped and on a terminal', async () => {
    const piped = await cli(['robots', '--columns', 'description,id', '--header']);
    expect(piped.code).toBe(0);
    expect(lines(piped.out)[0]).toBe('DESCRIPTION\tID');
    expect(lines(piped.out)[1]).toBe(`${robots()[0]!.RobotDescription}\t${robots()[0]!.RobotID}`);

    const tty = await cli(['plan', 'detail', SEED.planName, '--columns', 'task_id,status'], { tty: true, columns: 80 });
    expect(tty.out).toMatch(/│ TASK ID +│ STATUS +│\n/);
    expect(tty.out).not.toContain('ROUND');
  });

  it('with several tables, a name may belong to either; a table with none of them is left out', async () => {
    const r = await cli(['workflow', 'task-detail', SEED.workflowTaskId, '--columns', 'callee,answer'], {
      tty: true,
      columns: 80,
    });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/│ CALLEE +│ ANSWER +│/);
    const calls = await cli(['workflow', 'task-detail', SEED.workflowTaskId, '--columns', 'case']);
    expect(calls.code).toBe(0);
    // The summary, a blank line, then only the CASE cells of the calls table: no answers section.
    const rows = calls.out.split('\n\n')[1]!.split('\n').filter(Boolean);
    expect(rows.every((row) => /^ID-KYC-\d+$/.test(row))).toBe(true);
  });

  it('an unknown name exits 2 with one line listing the valid names, and prints no rows', async () => {
    const r = await cli(['robots', '--columns', 'id,nope']);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe('error: --columns: no column "nope"; valid: id, name, method, voice, tone, description\n');
    const empty = await cli(['robots', '--columns', 'id,']);
    expect(empty.code).toBe(2);
    expect(empty.err).toMatch(/--columns.*comma-separated/);
  });
});

describe('in a real 80-column terminal (tmux)', () => {
  const bin = fileURLToPath(new URL('../../bin/callctl.js', import.meta.url));
  itWith('tmux', 'robots and workflow list fit without wrapping', async () => {
    const session = new TmuxSession(
      `"${process.execPath}" "${bin}" robots && "${process.execPath}" "${bin}" workflow list --size 5`,
      env,
      { width: 80 },
    );
    sessions.push(session);
    const screen = await session.waitFor(/EXIT=\d+/);
    expect(screen).toMatch(/EXIT=0/);
    const rows = screen.split('\n').filter((l) => /^[┌│├└]/.test(l));
    // A wrapped row would leave a line that does not end with a border.
    for (const row of rows) expect(row.trimEnd(), row).toMatch(/[┐│┤┘]$/);
    for (const r of robots()) expect(screen).toContain(r.RobotID);
    expect(screen).toContain(SEED.workflowId);
  });
});

describe('service text never drives the terminal', () => {
  // A robot's name and description are the service's words (and whoever wrote them there): an
  // ESC sequence, a BEL or a C1 CSI in them must not reach the terminal or break TSV lines.
  const hostile = { name: 'Collect\u001b[2J\u0007or', description: 'line one\nline two\tand\u009b31m red\u0000' };
  let saved: { RobotName?: string | null; RobotDescription?: string | null };
  beforeEach(() => {
    const robot = robots()[0]!;
    saved = { RobotName: robot.RobotName, RobotDescription: robot.RobotDescription };
    Object.assign(robot, { RobotName: hostile.name, RobotDescription: hostile.description });
    return () => Object.assign(robots()[0]!, saved);
  });
  const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  it.each([
    ['piped, TSV', { tty: false }],
    ['on a terminal, table', { tty: true, columns: 200 }],
  ] as const)('robots %s: control characters shown as \\xNN, one line per robot', async (_label, options) => {
    const r = await cli(['robots', '--wide'], options);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(controls);
    expect(r.out).toContain('Collect\\x1b[2J\\x07or');
    expect(r.out).toContain('\\x9b31m red\\x00');
    if (!options.tty) expect(lines(r.out)).toHaveLength(robots().length);
  });

  it('key and value lines (plan status) show them as \\xNN too, piped and on a terminal', async () => {
    const plan = sandbox.state.plans.get(SEED.planName)!;
    const before = plan.PlanStatus;
    plan.PlanStatus = 'running\u001b]0;owned\u0007' as typeof plan.PlanStatus;
    try {
      for (const tty of [false, true]) {
        const r = await cli(['plan', 'status', SEED.planName], { tty, columns: 200 });
        expect(r.code, r.err).toBe(0);
        expect(r.out).not.toMatch(controls);
        expect(r.out).toContain('running\\x1b]0;owned\\x07');
      }
    } finally {
      plan.PlanStatus = before;
    }
  });
});
