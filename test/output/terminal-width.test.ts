import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { forcedTTY, terminalColumns } from '../../src/io.js';
import { useSandbox } from '../helpers/sandbox.js';

const run = promisify(execFile);
const bin = fileURLToPath(new URL('../../bin/callctl.js', import.meta.url));

describe('CALLCTL_FORCE_TTY and COLUMNS, as documented', () => {
  it('CALLCTL_FORCE_TTY says "render as on a terminal"; the width comes from COLUMNS, else the terminal, else 80', () => {
    expect(forcedTTY('1')).toBe(true);
    expect(forcedTTY('yes')).toBe(true);
    for (const off of [undefined, '', '0', 'false', 'FALSE']) expect(forcedTTY(off)).toBe(false);
    expect(terminalColumns(undefined, undefined)).toBeUndefined();
    expect(terminalColumns(undefined, 132)).toBe(132);
    expect(terminalColumns('60', 132)).toBe(60);
    for (const odd of ['', '0', 'wide', '-5', '1.5']) expect(terminalColumns(odd, 132)).toBe(132);
  });

  const fx = useSandbox();
  const robots = async (extra: Record<string, string>) => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...fx.env, NO_COLOR: '1' };
    delete env.COLUMNS;
    delete env.CALLCTL_FORCE_TTY;
    const { stdout } = await run(process.execPath, [bin, 'robots'], { env: { ...env, ...extra } });
    return stdout.split('\n').filter(Boolean);
  };
  const widest = (lines: string[]) => Math.max(...lines.map((l) => [...l].length));

  it('the built CLI, piped: a table 80 wide with CALLCTL_FORCE_TTY=1 (not 1 column wide), COLUMNS wide with COLUMNS, TSV without', async () => {
    const forced = await robots({ CALLCTL_FORCE_TTY: '1' });
    expect(forced[0]).toMatch(/^┌/);
    expect(widest(forced)).toBe(80);
    const narrow = await robots({ CALLCTL_FORCE_TTY: '1', COLUMNS: '64' });
    expect(narrow[0]).toMatch(/^┌/);
    expect(widest(narrow)).toBeLessThanOrEqual(64);
    expect(widest(narrow)).toBeGreaterThan(58);
    const piped = await robots({ COLUMNS: '64' });
    expect(piped[0]).toMatch(/^rb-1001\t/);
    expect(await robots({ CALLCTL_FORCE_TTY: '0' })).toEqual(await robots({}));
  });
});
